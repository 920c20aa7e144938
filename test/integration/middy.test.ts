import middy, { type MiddlewareObj } from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { InvalidConfigurationError } from '../../src/errors.js';
import { createBatchProcessor, type MessageHandler } from '../../src/index.js';
import { PaymentCaptured, payment, useLedger } from '../support/ledgerFixture.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';

const { ledger } = useLedger();

const lambdaContext = { awsRequestId: 'req-1', functionName: 'ledger' } as Context;

function ledgerProcessor(handler: MessageHandler<PaymentCaptured> = ledger.applyPayment) {
  return createBatchProcessor(handler, {
    store: ledger.store,
    consumer: 'ledger-middy',
    schema: PaymentCaptured,
    key: ({ body }) => body.eventId,
    observability: { logger: recordingLogger() },
  });
}

describe('the batch processor as middy base handler', () => {
  it('processes the batch and returns the partial batch response to the middlewares and Lambda', async () => {
    const seenByAfter: unknown[] = [];
    const handler = middy<SQSEvent, SQSBatchResponse>(ledgerProcessor().process).use({
      after: async (request) => void seenByAfter.push(request.response),
    });
    const good = sqsRecord(payment({ accountId: 'acc-middy' }));
    const bad = sqsRecord({ eventId: 'evt-not-a-payment' });

    const response = await handler(sqsEvent(good, bad), lambdaContext);

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: bad.messageId }] });
    expect(seenByAfter).toEqual([response]);
    expect(await ledger.balanceOf('acc-middy')).toBe(1250);
  });

  it('hands the Lambda context to the per-message handler', async () => {
    const seen: unknown[] = [];
    const processor = ledgerProcessor(async (message, tx) => {
      seen.push(message.context?.awsRequestId);
      await ledger.applyPayment(message, tx);
    });

    await middy(processor.process)(
      sqsEvent(sqsRecord(payment({ accountId: 'acc-ctx' }))),
      lambdaContext,
    );

    expect(seen).toEqual(['req-1']);
  });

  it('acknowledges a duplicate delivered in a later invocation', async () => {
    const handler = middy(ledgerProcessor().process);
    const event = payment({ accountId: 'acc-middy-dup' });

    await handler(sqsEvent(sqsRecord(event)), lambdaContext);
    const response = await handler(sqsEvent(sqsRecord(event)), lambdaContext);

    expect(response).toEqual({ batchItemFailures: [] });
    expect(await ledger.balanceOf('acc-middy-dup')).toBe(event.amountCents);
  });

  it.each([
    { case: 'beside a base handler of its own', base: async () => ({ batchItemFailures: [] }) },
    { case: 'on a handler-less middy', base: undefined },
  ])('refuses to run as a middleware $case, in before, so nothing commits', async ({ base }) => {
    const processor = ledgerProcessor();
    const event = payment({ accountId: 'acc-misused' });
    const handler = (base ? middy(base) : middy()).use(
      processor.process as unknown as MiddlewareObj,
    );

    await expect(handler(sqsEvent(sqsRecord(event)), lambdaContext)).rejects.toThrow(
      InvalidConfigurationError,
    );
    await expect(handler(sqsEvent(sqsRecord(event)), lambdaContext)).rejects.toThrow(
      /write middy\(processor\.process\)\.use\(/,
    );
    expect(await ledger.balanceOf('acc-misused')).toBe(0);
  });

  it('fails the invocation loudly for an event that is not from SQS', async () => {
    const handler = middy(ledgerProcessor().process);

    await expect(handler({ detail: {} } as never, lambdaContext)).rejects.toThrow(
      /Not an SQS event/,
    );
  });
});
