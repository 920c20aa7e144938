import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  BusinessConditionFailedError,
  LeaseHeldError,
  RecordDeadlineError,
  SchemaValidationError,
} from '../../../src/errors.js';
import {
  createBatchProcessor,
  inboxConfigFromEnvironment,
  type MessageHandler,
} from '../../../src/index.js';
import {
  copyOf,
  DynamoFault,
  fifoRecord,
  InboxTest,
  redeliveryOf,
  snsRecord,
  sqsRecord,
} from '../../../src/testing/index.js';
import type { InboxSpan, InboxTracer } from '../../../src/types.js';

const Payment = z.object({ eventId: z.string(), accountId: z.string(), amountCents: z.number() });
type Payment = z.infer<typeof Payment>;
const HOUR_MILLIS = 3_600_000;

function ledger(options: { outbox?: boolean } = {}) {
  const inbox = new InboxTest({
    consumer: 'ledger',
    tables: [{ tableName: 'accounts', partitionKey: 'accountId' }],
    ...options,
  });
  const charges: string[] = [];
  const handler: MessageHandler<Payment> = async (message, tx) => {
    await message.step('charge', async ({ idempotencyKey }) => {
      charges.push(idempotencyKey);
    });
    tx.update({
      TableName: 'accounts',
      Key: { accountId: message.body.accountId },
      UpdateExpression: 'ADD balanceCents :amount',
      ConditionExpression: 'attribute_not_exists(balanceCents) OR balanceCents >= :zero',
      ExpressionAttributeValues: { ':amount': message.body.amountCents, ':zero': 0 },
    });
    if (options.outbox)
      tx.publish({
        destination: 'arn:aws:sns:us-east-1:000000000000:receipts',
        body: message.body,
      });
  };
  const processor = createBatchProcessor(handler, {
    ...inbox.options,
    schema: Payment,
    key: ({ body }) => body.eventId,
  });
  const balance = () => inbox.dynamo.item('accounts', { accountId: 'acc-1' })?.balanceCents;
  return { inbox, processor, charges, balance };
}

const payment = (eventId: string, amountCents = 1250) =>
  sqsRecord({ eventId, accountId: 'acc-1', amountCents });

describe('InboxTest', () => {
  it('commits a message once: a copy of it with another messageId is a duplicate', async () => {
    const { inbox, processor, balance } = ledger();
    const original = payment('e-1');
    const first = await inbox.run(processor, [original]);
    const copy = await inbox.run(processor, [copyOf(original)]);
    expect(first.records.map((record) => record.status)).toEqual(['processed']);
    expect(copy.records.map((record) => record.status)).toEqual(['duplicate']);
    expect(balance()).toBe(1250);
    expect(await inbox.entry('e-1')).toMatchObject({ status: 'COMPLETED' });
  });

  it('reports a failed business condition as failed, writing nothing, for SQS to retry', async () => {
    const { inbox, processor, balance } = ledger();
    await inbox.run(processor, [payment('e-1', -100)]);
    const run = await inbox.run(processor, [payment('e-2', -100)]);
    expect(run.records[0]?.error).toBeInstanceOf(BusinessConditionFailedError);
    expect(run.failedMessageIds).toEqual([run.records[0]?.messageId]);
    expect(balance()).toBe(-100);
    expect(await inbox.entry('e-2')).toMatchObject({ status: 'FAILED' });
  });

  it('dead-letters a body its schema refuses, with the reason on the DLQ copy', async () => {
    const { inbox, processor } = ledger();
    const run = await inbox.run(processor, [sqsRecord({ eventId: 'e-1', amountCents: 'ten' })]);
    expect(run.records[0]).toMatchObject({ status: 'deadLettered' });
    expect(run.records[0]?.error).toBeInstanceOf(SchemaValidationError);
    expect(inbox.deadLetters().map((dead) => dead.attributes['inbox.error'])).toEqual([
      'SchemaValidationError',
    ]);
  });

  it('replays a journaled step after the invocation died; a copy meets its live lease until it lapses', async () => {
    const { inbox, processor, charges, balance } = ledger();
    const record = payment('e-1');
    const crashed = await inbox.run(processor, [record], { crash: { afterStep: 'charge' } });
    expect(crashed).toMatchObject({ crashed: true, records: [] });
    const copy = await inbox.run(processor, [copyOf(record)]);
    expect(copy.records[0]?.error).toBeInstanceOf(LeaseHeldError);
    await inbox.clock.advanceMillis(HOUR_MILLIS);
    const again = await inbox.run(processor, [redeliveryOf(record)]);
    expect(again.records[0]).toMatchObject({
      status: 'processed',
      stepsRun: [],
      stepsReplayed: ['charge'],
    });
    expect(charges).toHaveLength(1);
    expect(balance()).toBe(1250);
  });

  it("lets a redelivery take a crashed lease over once the clock is past 65 s, as the docs' Testing page says: 60 s and 5 s for clock skew", async () => {
    const { inbox, processor } = ledger();
    const record = payment('e-1');
    await inbox.run(processor, [record], { crash: { afterStep: 'charge' } });
    await inbox.clock.advanceMillis(65_000);
    const early = await inbox.run(processor, [redeliveryOf(record)]);
    expect(early.records[0]?.error).toBeInstanceOf(LeaseHeldError);
    await inbox.clock.advanceMillis(1);
    const run = await inbox.run(processor, [redeliveryOf(record)]);
    expect(run.records[0]).toMatchObject({ status: 'processed', stepsReplayed: ['charge'] });
  });

  it('runs a step again, with the same idempotency key, when the invocation died before its journal landed', async () => {
    const { inbox, processor, charges } = ledger();
    const record = payment('e-1');
    await inbox.run(processor, [record], { crash: { afterStep: 'charge', journaled: false } });
    await inbox.clock.advanceMillis(HOUR_MILLIS);
    const again = await inbox.run(processor, [record]);
    expect(again.records[0]).toMatchObject({ status: 'processed', stepsRun: ['charge'] });
    expect(charges).toHaveLength(2);
    expect(charges[1]).toBe(charges[0]);
  });

  it('retries a transaction conflict within the record, and commits once', async () => {
    const { inbox, processor, balance } = ledger();
    inbox.dynamo.injectFault({ fault: DynamoFault.Conflict, operation: 'TransactWriteItems' });
    const run = await inbox.run(processor, [payment('e-1')]);
    expect(run.records[0]?.status).toBe('processed');
    expect(inbox.dynamo.pendingFaults).toBe(0);
    expect(balance()).toBe(1250);
  });

  it('throws what the in-memory DynamoDB does not model, instead of reporting the record failed', async () => {
    const inbox = new InboxTest({ tables: [{ tableName: 'orders', partitionKey: 'orderId' }] });
    const processor = createBatchProcessor(
      async () => {
        await inbox.dynamo.documentClient.send(
          new QueryCommand({
            TableName: 'orders',
            IndexName: 'byCustomer',
            KeyConditionExpression: 'customerId = :c',
            ExpressionAttributeValues: { ':c': 'c-1' },
          }),
        );
      },
      { ...inbox.options, key: ({ messageId }) => messageId },
    );
    await expect(inbox.run(processor, [sqsRecord({})])).rejects.toMatchObject({
      name: 'NotModelledError',
      feature: 'IndexName',
    });
  });

  it('refuses a crash point the batch never reaches, naming the steps it ran', async () => {
    const { inbox, processor } = ledger();
    await expect(
      inbox.run(processor, [payment('e-1')], { crash: { afterStep: 'chrage' } }),
    ).rejects.toThrow(/crash\.afterStep.*it ran charge/);
  });

  it('refuses a processor whose tracer is not the harness’s, which would leave every record’s steps empty', async () => {
    const inbox = new InboxTest();
    const span: InboxSpan = {
      setAttributes: () => {},
      recordError: () => {},
      startChild: () => span,
      withActive: (work) => work(),
      traceparent: () => undefined,
      end: () => {},
    };
    const ownTracer: InboxTracer = { startSpan: () => span };
    const processor = createBatchProcessor(
      async ({ step }) => {
        await step('charge', async () => {});
      },
      {
        ...inbox.options,
        observability: { ...inbox.options.observability, tracer: ownTracer },
        key: ({ messageId }) => messageId,
      },
    );
    await expect(inbox.run(processor, [sqsRecord({})])).rejects.toMatchObject({
      name: 'InvalidConfigurationError',
      option: 'observability.tracer',
      message: expect.stringMatching(/spread inbox\.options\.observability/),
    });
  });

  it('lists the FIFO records skipped behind a failure among those SQS delivers again', async () => {
    const inbox = new InboxTest();
    const processor = createBatchProcessor(
      async ({ body }) => {
        if ((body as { fail?: boolean }).fail) throw new Error('the downstream is down');
      },
      { ...inbox.options, key: ({ messageId }) => messageId },
    );
    const run = await inbox.run(processor, [
      fifoRecord({ fail: true }, { groupId: 'g' }),
      fifoRecord({}, { groupId: 'g' }),
    ]);
    expect(run.records.map((record) => record.status)).toEqual(['failed', 'skipped']);
    expect(run.failedMessageIds).toEqual(run.records.map((record) => record.messageId));
  });

  it('gives a handler module the config inboxConfigFromEnvironment would, over its own tables', async () => {
    const inbox = new InboxTest({
      consumer: 'ledger',
      tables: [{ tableName: 'accounts', partitionKey: 'accountId' }],
      outbox: true,
    });
    const createLedger = (config = inboxConfigFromEnvironment()) => {
      const accounts = config.table('accounts');
      return createBatchProcessor(
        async ({ body }, tx) => {
          tx.put({ TableName: accounts, Item: { accountId: body.accountId } });
        },
        { ...config.options, schema: Payment, key: ({ body }) => body.eventId },
      );
    };
    const run = await inbox.run(createLedger(inbox.inboxConfig()), [payment('e-1')]);
    expect(run.records[0]?.status).toBe('processed');
    expect(inbox.dynamo.items('accounts')).toEqual([{ accountId: 'acc-1' }]);
    expect(inbox.environment).toMatchObject({
      INBOX_CONSUMER: 'ledger',
      INBOX_BUSINESS_TABLE_accounts: 'accounts',
    });
  });

  it('gives a handler module the sources and outbox destinations the construct would declare', async () => {
    const receipts = 'arn:aws:sns:us-east-1:123456789012:receipts';
    const inbox = new InboxTest({ outbox: true, sources: ['sns'], destinations: { receipts } });
    const createNotifier = (config = inboxConfigFromEnvironment()) => {
      const destination = config.destination('receipts');
      return createBatchProcessor(
        async ({ body }, tx) => {
          tx.publish({ destination, body });
        },
        // No key: the SNS source's default, the topic's message id.
        config.options,
      );
    };
    const record = snsRecord({ orderId: 'o-1' }, { snsMessageId: 'sns-1' });
    const run = await inbox.run(createNotifier(inbox.inboxConfig()), [record]);
    expect(run.records[0]).toMatchObject({ status: 'processed', key: 'sns:sns-1' });
    expect(inbox.outboxItems()[0]?.messages).toMatchObject([
      { destination: receipts, body: '{"orderId":"o-1"}' },
    ]);
    expect(inbox.environment).toMatchObject({
      INBOX_SOURCES: 'sns',
      INBOX_DESTINATION_receipts: receipts,
    });
  });

  it('gives a context whose time left counts down by its clock: the batch deadline fails the records still running', async () => {
    const inbox = new InboxTest();
    const { runtime } = inbox.options;
    const processor = createBatchProcessor(
      async ({ body }) => {
        await runtime.sleep((body as { workMillis: number }).workMillis);
      },
      // One record at a time: the second starts when the first is done.
      { ...inbox.options, key: ({ messageId }) => messageId, performance: { concurrency: 1 } },
    );
    const context = inbox.context({ remainingMillis: 10_000 });
    // 4 s of the invocation gone before the batch: its deadline is 6 s less the 1 s margin away.
    await inbox.clock.advanceMillis(4_000);
    const quick = sqsRecord({ workMillis: 2_000 });
    const slow = sqsRecord({ workMillis: 4_000 });
    const run = await inbox.run(processor, [quick, slow], { context });
    expect(run.records.map((record) => record.status)).toEqual(['processed', 'failed']);
    expect(run.records[1]?.error).toBeInstanceOf(RecordDeadlineError);
    expect(run.failedMessageIds).toEqual([slow.messageId]);
  });

  it('writes one outbox item per commit that published, none for a duplicate', async () => {
    const { inbox, processor } = ledger({ outbox: true });
    await inbox.run(processor, [payment('e-1'), payment('e-1')]);
    expect(inbox.outboxItems()).toHaveLength(1);
  });
});
