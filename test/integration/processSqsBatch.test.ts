import { createHash } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { InboxMetric, InboxStatus, keyHash } from '../../src/constants/index.js';
import { PayloadMismatchError } from '../../src/errors.js';
import {
  BusinessConditionFailedError,
  createBatchProcessor,
  DynamoDBInboxStore,
  type InboxOptions,
  Precheck,
  processSqsBatch,
  RecordStatus,
  redriveUnsafeMessageIdKey,
} from '../../src/index.js';
import { recordCommands } from '../../tools/sdk/clientSpy.js';
import { PaymentCaptured, payment, useLedger } from '../support/ledgerFixture.js';
import { countingMetrics, recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';
import { withOptions } from '../support/withOptions.js';

const { aws, ledger } = useLedger();
const sent = recordCommands(aws.dynamodb);

function ledgerOptions(overrides: Partial<InboxOptions<typeof PaymentCaptured>> = {}) {
  const logger = recordingLogger();
  const metrics = countingMetrics();
  const options = withOptions<InboxOptions<typeof PaymentCaptured>>(
    {
      store: ledger.store,
      consumer: 'ledger',
      schema: PaymentCaptured,
      key: ({ body }) => body.eventId,
      observability: { logger, metrics },
    },
    overrides,
  );
  return { options, logger, metrics };
}

describe('first delivery', () => {
  it('commits the business writes and the inbox entry in exactly one TransactWriteItems', async () => {
    const event = payment({ accountId: 'acc-first' });
    const record = sqsRecord(event);
    const nowMillis = Math.floor(Date.now() / 1000) * 1000 + 500;
    const { options } = ledgerOptions({ ttlSeconds: 3600, runtime: { now: () => nowMillis } });
    sent.length = 0;

    const response = await processSqsBatch(sqsEvent(record), ledger.applyPayment, options);

    expect(response).toEqual({ batchItemFailures: [] });
    const transactions = sent.filter((command) => command.name === 'TransactWriteItemsCommand');
    expect(transactions).toHaveLength(1);
    const items = transactions[0]?.input.TransactItems as Array<
      Record<string, { TableName: string }>
    >;
    expect(items.map((item) => Object.keys(item)[0])).toEqual(['Put', 'Update', 'Put']);
    expect(items[0]?.Put).toMatchObject({
      TableName: ledger.tables.inbox,
      ConditionExpression:
        'attribute_not_exists(#pk) OR #expiresAt < :nowEpochSeconds OR ' +
        '(#status <> :completed AND #expiresAt >= :nowEpochSeconds AND ' +
        '(#payloadHash IN (:payloadHash, :bodyHash) OR attribute_not_exists(#steps)) AND ' +
        '(attribute_not_exists(#leaseUntil) OR #leaseUntil < :nowMillis) AND ' +
        '(attribute_not_exists(#formatVersion) OR #formatVersion <= :formatVersion))',
    });
    expect(await ledger.balanceOf('acc-first')).toBe(event.amountCents);
    expect(await ledger.ledgerEntry(event.paymentId)).toMatchObject({
      amountCents: event.amountCents,
    });
    expect(await ledger.inboxEntry('ledger', event.eventId)).toEqual({
      pk: `ledger#${event.eventId}`,
      consumer: 'ledger',
      key: event.eventId,
      messageId: record.messageId,
      status: InboxStatus.Completed,
      payloadHash: createHash('sha256').update(record.body).digest('hex'),
      processedAt: new Date(nowMillis).toISOString(),
      expiresAt: Math.floor(nowMillis / 1000) + 3600,
      formatVersion: 1,
    });
  });

  it('redriveUnsafeMessageIdKey keys a FIFO message by its MessageDeduplicationId', async () => {
    const record = sqsRecord(payment({ accountId: 'acc-fifo-key' }), {
      fifo: { groupId: 'acc-fifo-key', deduplicationId: `dedup-${Date.now()}` },
    });
    const { options } = ledgerOptions({ key: redriveUnsafeMessageIdKey });

    await processSqsBatch(sqsEvent(record), ledger.applyPayment, options);

    const deduplicationId = record.attributes.MessageDeduplicationId ?? '';
    expect(await ledger.inboxEntry('ledger', deduplicationId)).toMatchObject({
      messageId: record.messageId,
    });
  });

  it('warns once that a content-based deduplication id makes identical bodies duplicates for the TTL', async () => {
    const body = JSON.stringify(payment({ accountId: 'acc-content-key' }));
    const contentHash = createHash('sha256').update(body).digest('hex');
    const records = [1, 2].map(() =>
      sqsRecord(body, { fifo: { groupId: 'acc-content-key', deduplicationId: contentHash } }),
    );
    const { options, logger } = ledgerOptions({ key: redriveUnsafeMessageIdKey });
    const processor = createBatchProcessor(ledger.applyPayment, options);

    await processor.process(sqsEvent(...records));

    expect(logger.lines.filter((line) => line.message.includes('content-based'))).toHaveLength(1);
  });

  it('redriveUnsafeMessageIdKey keys a standard queue message by its SQS messageId', async () => {
    const record = sqsRecord(payment({ accountId: 'acc-default-key' }));
    const { options } = ledgerOptions({ key: redriveUnsafeMessageIdKey });

    await processSqsBatch(sqsEvent(record), ledger.applyPayment, options);

    expect(await ledger.inboxEntry('ledger', record.messageId)).toMatchObject({
      key: record.messageId,
    });
  });
});

describe('duplicates', () => {
  it('labels each copy of a message that comes twice in one batch with its own outcome', async () => {
    const event = payment({ accountId: `acc-twice-${Math.random()}` });
    const record = sqsRecord(event);
    const { options } = ledgerOptions();

    const outcomes = await createBatchProcessor(ledger.applyPayment, options).processRecords(
      sqsEvent(record, { ...record }),
    );

    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      RecordStatus.Processed,
      RecordStatus.Duplicate,
    ]);
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
  });

  it.each([
    { precheck: Precheck.Concurrent, seenBy: 'the pre-check read' },
    { precheck: Precheck.Off, seenBy: 'the transaction condition' },
  ])(
    'applies a redelivered event once and acknowledges the copy, seen by $seenBy',
    async ({ precheck }) => {
      const accountId = `acc-dup-${precheck}`;
      const event = payment({ accountId });
      const { options, logger, metrics } = ledgerOptions({ performance: { precheck: precheck } });

      await processSqsBatch(sqsEvent(sqsRecord(event)), ledger.applyPayment, options);
      const copy = sqsRecord(event);
      const response = await processSqsBatch(sqsEvent(copy), ledger.applyPayment, options);

      expect(response.batchItemFailures).toEqual([]);
      expect(await ledger.balanceOf(accountId)).toBe(event.amountCents);
      expect(metrics.count(InboxMetric.Duplicates)).toBe(1);
      expect(metrics.count(InboxMetric.Processed)).toBe(1);
      const logged = logger.lines.find((line) => line.message.startsWith('duplicate'));
      expect(logged?.extra).toMatchObject({
        keyHash: keyHash(event.eventId),
        messageId: copy.messageId,
      });
    },
  );

  it('applies an event once when ten invocations race on the same key', async () => {
    const event = payment({ accountId: 'acc-race' });
    const { options, metrics } = ledgerOptions();
    const processor = createBatchProcessor(ledger.applyPayment, options);

    const responses = await Promise.all(
      Array.from({ length: 10 }, () => processor.process(sqsEvent(sqsRecord(event)))),
    );

    expect(responses.flatMap((response) => response.batchItemFailures)).toEqual([]);
    expect(await ledger.balanceOf('acc-race')).toBe(event.amountCents);
    expect(metrics.count(InboxMetric.Processed)).toBe(1);
    expect(metrics.count(InboxMetric.Duplicates)).toBe(9);
  });

  it.each([Precheck.Concurrent, Precheck.Off])(
    'fails the same key with a different body as a payload mismatch and applies nothing (precheck %s)',
    async (precheck) => {
      const accountId = `acc-mismatch-${precheck}`;
      const event = payment({ accountId });
      const { options } = ledgerOptions({ performance: { precheck: precheck } });
      const processor = createBatchProcessor(ledger.applyPayment, options);
      await processor.process(sqsEvent(sqsRecord(event)));

      const altered = sqsRecord({ ...event, amountCents: 99_999 });
      const [outcome] = await processor.processRecords(sqsEvent(altered));

      expect(outcome?.status).toBe(RecordStatus.Failed);
      expect(outcome?.error).toBeInstanceOf(PayloadMismatchError);
      expect(await ledger.balanceOf(accountId)).toBe(event.amountCents);
    },
  );
});

describe('caller-supplied clients', () => {
  it('reads entries through a document client that unmarshalls numbers as NumberValue', async () => {
    const documentClient = DynamoDBDocumentClient.from(aws.dynamodb, {
      unmarshallOptions: { wrapNumbers: true },
    });
    const store = new DynamoDBInboxStore({
      tableName: ledger.tables.inbox,
      client: documentClient,
    });
    const event = payment({ accountId: 'acc-wrapped' });
    const { options, metrics } = ledgerOptions({ store });

    await processSqsBatch(sqsEvent(sqsRecord(event)), ledger.applyPayment, options);
    const response = await processSqsBatch(
      sqsEvent(sqsRecord(event)),
      ledger.applyPayment,
      options,
    );

    expect(response.batchItemFailures).toEqual([]);
    expect(metrics.count(InboxMetric.Duplicates)).toBe(1);
    expect(await ledger.balanceOf('acc-wrapped')).toBe(event.amountCents);
  });
});

describe('expiry', () => {
  it('treats an inbox entry past expiresAt that TTL has not deleted yet as absent', async () => {
    const event = payment({ accountId: 'acc-expired' });
    const firstMillis = Date.now();
    const first = sqsRecord(event);
    await processSqsBatch(
      sqsEvent(first),
      ledger.applyPayment,
      ledgerOptions({ ttlSeconds: 60, runtime: { now: () => firstMillis } }).options,
    );

    const later = sqsRecord({ ...event, paymentId: `${event.paymentId}-again` });
    const laterOptions = ledgerOptions({
      ttlSeconds: 60,
      runtime: { now: () => firstMillis + 61_000 + 1000 },
    });
    const response = await processSqsBatch(
      sqsEvent(later),
      ledger.applyPayment,
      laterOptions.options,
    );

    expect(response.batchItemFailures).toEqual([]);
    expect(laterOptions.metrics.count(InboxMetric.Processed)).toBe(1);
    expect(await ledger.balanceOf('acc-expired')).toBe(2 * event.amountCents);
    expect(await ledger.inboxEntry('ledger', event.eventId)).toMatchObject({
      messageId: later.messageId,
    });
  });

  it('still deduplicates an entry whose expiresAt is the current second', async () => {
    const event = payment({ accountId: 'acc-edge' });
    const startMillis = Date.now();
    await processSqsBatch(
      sqsEvent(sqsRecord(event)),
      ledger.applyPayment,
      ledgerOptions({ ttlSeconds: 60, runtime: { now: () => startMillis } }).options,
    );

    const atExpiry = ledgerOptions({
      ttlSeconds: 60,
      runtime: { now: () => startMillis + 60_000 },
      performance: { precheck: 'off' },
    });
    await processSqsBatch(sqsEvent(sqsRecord(event)), ledger.applyPayment, atExpiry.options);

    expect(atExpiry.metrics.count(InboxMetric.Duplicates)).toBe(1);
    expect(await ledger.balanceOf('acc-edge')).toBe(event.amountCents);
  });
});

describe('failures', () => {
  it('reports a throwing handler as a failed record, writes none of its effects (only its failure record), and commits the rest', async () => {
    const events = [
      payment({ accountId: 'acc-f1' }),
      payment({ accountId: 'acc-f2' }),
      payment({ accountId: 'acc-f3' }),
    ];
    const records = events.map((event) => sqsRecord(event));
    const { options } = ledgerOptions();

    const response = await processSqsBatch(
      sqsEvent(...records),
      async (message, tx) => {
        await ledger.applyPayment(message, tx);
        if (message.body.accountId === 'acc-f2') throw new Error('downstream lookup failed');
      },
      options,
    );

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: records[1]?.messageId }]);
    expect(await ledger.balanceOf('acc-f1')).toBe(events[0]?.amountCents);
    expect(await ledger.balanceOf('acc-f2')).toBe(0);
    expect(await ledger.inboxEntry('ledger', events[1]?.eventId ?? '')).toMatchObject({
      status: 'FAILED',
      lastError: { name: 'Error' },
    });
    expect(await ledger.balanceOf('acc-f3')).toBe(events[2]?.amountCents);
  });

  it('reports a failed business condition as retryable, naming the operation, and leaves only its failure record in the inbox', async () => {
    await ledger.setStock('sku-cond', 1);
    const order = { eventId: `evt-order-${Date.now()}`, sku: 'sku-cond', quantity: 3 };
    let handlerRuns = 0;
    const handler = createBatchProcessor<never>(
      async ({ body }, tx) => {
        handlerRuns++;
        const { sku, quantity } = body as typeof order;
        tx.put({
          TableName: ledger.tables.entries,
          Item: { paymentId: `reservation-${order.eventId}`, sku },
        });
        tx.update({
          TableName: ledger.tables.stock,
          Key: { sku },
          UpdateExpression: 'ADD available :minus',
          ConditionExpression: 'available >= :quantity',
          ExpressionAttributeValues: { ':minus': -quantity, ':quantity': quantity },
        });
      },
      {
        store: ledger.store,
        consumer: 'inventory',
        key: ({ body }) => (body as typeof order).eventId,
        observability: { logger: recordingLogger() },
      },
    );

    const [failed] = await handler.processRecords(sqsEvent(sqsRecord(order)));

    expect(failed?.status).toBe(RecordStatus.Failed);
    expect(handlerRuns).toBe(1);
    expect(failed?.error).toBeInstanceOf(BusinessConditionFailedError);
    expect(failed?.error).toMatchObject({
      operationIndex: 1,
      operationType: 'Update',
      tableName: ledger.tables.stock,
    });
    expect(await ledger.inboxEntry('inventory', order.eventId)).toMatchObject({
      status: 'FAILED',
      lastError: { name: 'BusinessConditionFailedError' },
    });
    expect(await ledger.ledgerEntry(`reservation-${order.eventId}`)).toBeUndefined();

    await ledger.setStock('sku-cond', 5);
    const [retried] = await handler.processRecords(sqsEvent(sqsRecord(order)));
    expect(retried?.status).toBe(RecordStatus.Processed);
    expect(await ledger.stockOf('sku-cond')).toBe(2);
  });
});
