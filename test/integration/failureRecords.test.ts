import { randomUUID } from 'node:crypto';
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { InboxStatus, inboxPk } from '../../src/constants/index.js';
import { hashPayload } from '../../src/core/inboxEntry.js';
import { LeaseHeldError } from '../../src/errors.js';
import {
  createBatchProcessor,
  type MessageHandler,
  PermanentError,
  Precheck,
  RecordStatus,
} from '../../src/index.js';
import { injectFault } from '../../tools/sdk/clientSpy.js';
import {
  ledgerProcessor,
  type PaymentCaptured,
  payment,
  useLedger,
} from '../support/ledgerFixture.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';

const { aws, ledger } = useLedger();
const CONSUMER = 'failures';

class ProviderTimeoutError extends Error {
  override readonly name = 'ProviderTimeoutError';
}

const entryOf = (eventId: string) => ledger.store.find(inboxPk(CONSUMER, eventId));

describe('failure records: a failed attempt of a step-less handler is recorded on its entry', () => {
  it('shows FAILED with each attempt counted and the last error between two transient failures, and COMPLETED after the commit', async () => {
    const event = payment({ accountId: `acc-${randomUUID()}` });
    let runs = 0;
    const handler: MessageHandler<PaymentCaptured> = async (message, tx) => {
      runs++;
      if (runs <= 2) throw new ProviderTimeoutError('the provider timed out');
      await ledger.applyPayment(message, tx);
    };
    const deliver = (messageId: string) =>
      ledgerProcessor(handler, { store: ledger.store, consumer: CONSUMER }).processRecords(
        sqsEvent(sqsRecord(event, { messageId })),
      );

    const [first] = await deliver('m-1');
    expect(first?.status).toBe(RecordStatus.Failed);
    expect(await entryOf(event.eventId)).toMatchObject({
      status: InboxStatus.Failed,
      messageId: 'm-1',
      attempts: 1,
      lastError: { name: 'ProviderTimeoutError' },
    });
    const [second] = await deliver('m-2');
    expect(second?.status).toBe(RecordStatus.Failed);
    const failed = await entryOf(event.eventId);
    expect(failed).toMatchObject({
      status: InboxStatus.Failed,
      messageId: 'm-2',
      attempts: 2,
      lastError: { name: 'ProviderTimeoutError' },
    });
    expect(failed?.steps).toBeUndefined();
    expect(failed?.leaseUntilMillis).toBeUndefined();

    const [third] = await deliver('m-3');
    expect(third?.status).toBe(RecordStatus.Processed);
    expect(await entryOf(event.eventId)).toMatchObject({
      status: InboxStatus.Completed,
      messageId: 'm-3',
    });
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
  });

  it('never overwrites a committed entry: a copy of a committed message whose handler throws leaves it as it was', async () => {
    const event = payment({ accountId: `acc-${randomUUID()}` });
    let runs = 0;
    const handler: MessageHandler<PaymentCaptured> = async (message, tx) => {
      runs++;
      if (runs > 1) throw new ProviderTimeoutError('a handler that reads its own effects');
      await ledger.applyPayment(message, tx);
    };
    const logger = recordingLogger();
    const deliver = (messageId: string) =>
      ledgerProcessor(handler, {
        store: ledger.store,
        consumer: CONSUMER,
        // The copy runs its handler: no batch read finds the entry before it.
        performance: { precheck: Precheck.Off },
        observability: { logger },
      }).processRecords(sqsEvent(sqsRecord(event, { messageId })));
    const [committed] = await deliver('m-1');
    expect(committed?.status).toBe(RecordStatus.Processed);
    const entry = await entryOf(event.eventId);

    const [copy] = await deliver('m-2');

    expect(copy?.status).toBe(RecordStatus.Failed);
    expect(await entryOf(event.eventId)).toEqual(entry);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({ level: 'debug', message: expect.stringMatching(/not recorded/) }),
    );
  });

  it("leaves another attempt's live lease alone when a step-less attempt fails beside it", async () => {
    const event = payment({ accountId: `acc-${randomUUID()}` });
    const pk = inboxPk(CONSUMER, event.eventId);
    const record = sqsRecord(event, { messageId: 'm-stepless' });
    const nowMillis = Date.now();
    let otherClaimed: boolean | undefined;
    const handler: MessageHandler<PaymentCaptured> = async () => {
      // Another attempt (a handler with steps, as a deploy switches) claims while this one runs.
      const claim = await ledger.store.claim({
        entry: {
          pk,
          consumer: CONSUMER,
          key: event.eventId,
          messageId: 'm-leased',
          payloadHash: hashPayload(record.body),
          expiresAt: Math.floor(nowMillis / 1000) + 86_400,
        },
        payloadHashes: [hashPayload(record.body)],
        owner: 'other-attempt',
        nowMillis,
        leaseUntilMillis: nowMillis + 600_000,
      });
      otherClaimed = claim.claimed;
      throw new ProviderTimeoutError('the provider timed out');
    };
    const [outcome] = await ledgerProcessor(handler, {
      store: ledger.store,
      consumer: CONSUMER,
    }).processRecords(sqsEvent(record));

    expect(otherClaimed).toBe(true);
    expect(outcome?.status).toBe(RecordStatus.Failed);
    const entry = await entryOf(event.eventId);
    expect(entry).toMatchObject({
      status: InboxStatus.InProgress,
      messageId: 'm-leased',
      attempts: 1,
      leaseUntilMillis: nowMillis + 600_000,
    });
    expect(entry?.lastError).toBeUndefined();
  });

  it("sends no failure record for a copy refused by another attempt's live lease: the entry answers for it", async () => {
    const event = payment({ accountId: `acc-${randomUUID()}` });
    const record = sqsRecord(event);
    const nowMillis = Date.now();
    await ledger.store.claim({
      entry: {
        pk: inboxPk(CONSUMER, event.eventId),
        consumer: CONSUMER,
        key: event.eventId,
        messageId: 'm-leased',
        payloadHash: hashPayload(record.body),
        expiresAt: Math.floor(nowMillis / 1000) + 86_400,
      },
      payloadHashes: [hashPayload(record.body)],
      owner: 'other-attempt',
      nowMillis,
      leaseUntilMillis: nowMillis + 600_000,
    });
    const { sent, store } = ledger.ownStore();

    const [outcome] = await ledgerProcessor(ledger.applyPayment, {
      store,
      consumer: CONSUMER,
    }).processRecords(sqsEvent(record));

    expect(outcome?.error).toBeInstanceOf(LeaseHeldError);
    expect(sent.map(({ name }) => name)).not.toContain('UpdateItemCommand');
  });

  it('lets another message of the key commit over a failure record, which holds no journal', async () => {
    const eventId = `evt-${randomUUID()}`;
    const accountId = `acc-${randomUUID()}`;
    const first = payment({ eventId, accountId, amountCents: 700 });
    const reused = payment({ eventId, accountId, amountCents: 300 });
    const failing: MessageHandler<PaymentCaptured> = async () => {
      throw new ProviderTimeoutError('the provider timed out');
    };
    for (const precheck of [Precheck.Before, Precheck.Off] as const) {
      const id = `${eventId}-${precheck}`;
      const [x] = await ledgerProcessor(failing, {
        store: ledger.store,
        consumer: CONSUMER,
      }).processRecords(sqsEvent(sqsRecord({ ...first, eventId: id })));
      expect(x?.status).toBe(RecordStatus.Failed);
      expect(await entryOf(id)).toMatchObject({ status: InboxStatus.Failed });

      const [y] = await ledgerProcessor(ledger.applyPayment, {
        store: ledger.store,
        consumer: CONSUMER,
        performance: { precheck },
      }).processRecords(sqsEvent(sqsRecord({ ...reused, eventId: id, paymentId: id })));

      expect(y?.status).toBe(RecordStatus.Processed);
    }
    expect(await ledger.balanceOf(accountId)).toBe(2 * reused.amountCents);
  });

  it('records nothing more for a handler with steps: its release tells the failure, counted once', async () => {
    const event = payment({ accountId: `acc-${randomUUID()}` });
    const handler: MessageHandler<PaymentCaptured> = async ({ step }) => {
      await step('charge', () => 'charged');
      throw new ProviderTimeoutError('the provider timed out');
    };
    const [outcome] = await ledgerProcessor(handler, {
      store: ledger.store,
      consumer: CONSUMER,
    }).processRecords(sqsEvent(sqsRecord(event)));

    expect(outcome?.status).toBe(RecordStatus.Failed);
    expect(await entryOf(event.eventId)).toMatchObject({
      status: InboxStatus.Failed,
      attempts: 1,
      lastError: { name: 'ProviderTimeoutError' },
      steps: { charge: {} },
    });
  });

  it.each([
    ['a retryable failure', () => new ProviderTimeoutError('timed out'), RecordStatus.Failed],
    ['a permanent failure', () => new PermanentError('refused'), RecordStatus.DeadLettered],
  ] as const)(
    'leaves the outcome of %s unchanged when its failure record is throttled (injected), with one WARN line',
    async (_, error, expected) => {
      const { client, store } = ledger.ownStore();
      const fault = injectFault(
        client,
        'UpdateItemCommand',
        () =>
          new ProvisionedThroughputExceededException({
            message: 'injected: throughput exceeded',
            $metadata: { httpStatusCode: 400 },
          }),
      );
      const dlq = await aws.createQueue(aws.uniqueName('failure-records-dlq'));
      const event = payment({ accountId: `acc-${randomUUID()}` });
      const logger = recordingLogger();
      const processor = createBatchProcessor(
        async () => {
          throw error();
        },
        {
          store,
          consumer: CONSUMER,
          key: () => event.eventId,
          deadLetter: { queueUrl: dlq.url, client: aws.sqs },
          observability: { logger },
        },
      );

      const [outcome] = await processor.processRecords(sqsEvent(sqsRecord(event)));

      expect(fault.injected()).toBe(1);
      expect(outcome?.status).toBe(expected);
      expect(await entryOf(event.eventId)).toBeUndefined();
      const warned = logger.lines.filter(
        (line) => line.level === 'warn' && /not recorded/.test(line.message),
      );
      expect(warned).toHaveLength(1);
    },
  );
});
