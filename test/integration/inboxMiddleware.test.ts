import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { InvalidConfigurationError, inboxMiddleware } from '../../src/index.js';
import { PaymentCaptured, payment, useLedger } from '../support/ledgerFixture.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';

const { ledger } = useLedger();

const lambdaContext = {} as never;

function ledgerMiddleware() {
  return inboxMiddleware({
    store: ledger.store,
    consumer: 'ledger-middy',
    schema: PaymentCaptured,
    key: ({ body }) => body.eventId,
    logger: recordingLogger(),
    handler: ledger.applyPayment,
  });
}

describe('inboxMiddleware', () => {
  it('processes the batch and returns the partial batch response to outer middlewares and Lambda', async () => {
    const seenByOuterAfter: unknown[] = [];
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use({ after: async (request) => void seenByOuterAfter.push(request.response) })
      .use(ledgerMiddleware());
    const good = sqsRecord(payment({ accountId: 'acc-middy' }));
    const bad = sqsRecord({ eventId: 'evt-not-a-payment' });

    const response = await handler(sqsEvent(good, bad), lambdaContext);

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: bad.messageId }] });
    expect(seenByOuterAfter).toEqual([response]);
    expect(await ledger.balanceOf('acc-middy')).toBe(1250);
  });

  it('acknowledges a duplicate delivered in a later invocation', async () => {
    const handler = middy<SQSEvent, SQSBatchResponse>().use(ledgerMiddleware());
    const event = payment({ accountId: 'acc-middy-dup' });

    await handler(sqsEvent(sqsRecord(event)), lambdaContext);
    const response = await handler(sqsEvent(sqsRecord(event)), lambdaContext);

    expect(response).toEqual({ batchItemFailures: [] });
    expect(await ledger.balanceOf('acc-middy-dup')).toBe(event.amountCents);
  });

  it('fails the invocation when a base handler also returns a response', async () => {
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(ledgerMiddleware())
      .handler(async () => ({ batchItemFailures: [] }));

    await expect(handler(sqsEvent(), lambdaContext)).rejects.toBeInstanceOf(
      InvalidConfigurationError,
    );
  });

  it('fails the invocation loudly for an event that is not from SQS', async () => {
    const handler = middy<SQSEvent, SQSBatchResponse>().use(ledgerMiddleware());

    await expect(handler({ detail: {} } as never, lambdaContext)).rejects.toThrow(
      /Not an SQS event/,
    );
  });
});
