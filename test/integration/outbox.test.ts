import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { outboxMessageId } from '../../src/constants/index.js';
import { OutgoingMessageError, TransactionLimit, TransactionLimitError } from '../../src/errors.js';
import {
  BusinessConditionFailedError,
  createBatchProcessor,
  DynamoDBInboxStore,
  type InboxMessage,
  type InboxOptions,
  type MessageHandler,
  RecordStatus,
  type TransactionBuilder,
} from '../../src/index.js';
import { groupItemPk } from '../../src/outbox/planOutboxItems.js';
import { loseResponse } from '../../tools/sdk/clientSpy.js';
import { PaymentCaptured, payment, useLedger } from '../support/ledgerFixture.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';
import { readStream } from '../support/streamRecords.js';
import { withOptions } from '../support/withOptions.js';

const { aws, ledger } = useLedger();
const CONSUMER = 'ledger';
const CREDITS_FIFO = 'http://localhost:4566/000000000000/credits.fifo';
const AUDIT_QUEUE = 'http://localhost:4566/000000000000/audit';
let outboxTable: string;

beforeAll(async () => {
  outboxTable = await aws.createOutboxTable(aws.uniqueName('outbox'));
});

function storeWith(client: DynamoDBClient = aws.dynamodb) {
  return new DynamoDBInboxStore({
    tableName: ledger.tables.inbox,
    client,
    outbox: { tableName: outboxTable },
  });
}

function processor(
  handler: MessageHandler<PaymentCaptured>,
  overrides: Partial<InboxOptions<typeof PaymentCaptured>> = {},
) {
  return createBatchProcessor(
    handler,
    withOptions<InboxOptions<typeof PaymentCaptured>>(
      {
        store: storeWith(),
        consumer: CONSUMER,
        schema: PaymentCaptured,
        key: ({ body }) => body.eventId,
        observability: { logger: recordingLogger() },
      },
      overrides,
    ),
  );
}

/** Credits the account and publishes PaymentCredited to its group, and an audit line. */
/** Applies the payment and publishes its credit and its audit line; the ids `tx.publish` gave. */
async function creditAndPublishIds(
  message: InboxMessage<PaymentCaptured>,
  tx: TransactionBuilder,
): Promise<string[]> {
  await ledger.applyPayment(message, tx);
  const { body } = message;
  const credited = tx.publish({
    destination: CREDITS_FIFO,
    groupId: body.accountId,
    body: { type: 'PaymentCredited', paymentId: body.paymentId, amountCents: body.amountCents },
  });
  const audit = tx.publish({
    destination: AUDIT_QUEUE,
    body: `credited ${body.paymentId}`,
    name: 'audit',
  });
  return [credited, audit];
}

const creditAndPublish: MessageHandler<PaymentCaptured> = async (message, tx) => {
  await creditAndPublishIds(message, tx);
};

async function outboxItem(pk: string) {
  const { Item } = await aws.documentClient.send(
    new GetCommand({ TableName: outboxTable, Key: { pk }, ConsistentRead: true }),
  );
  return Item;
}

function idsOf(item: Record<string, unknown> | undefined): string[] {
  return ((item?.messages ?? []) as Array<{ id: string }>).map(({ id }) => id);
}

describe('publishing through the outbox', () => {
  it('writes each outgoing message to the outbox in the transaction that applies the payment', async () => {
    const event = payment({ accountId: `acc-${Date.now()}` });
    const result = await processor(creditAndPublish).process(sqsEvent(sqsRecord(event)));

    expect(result.batchItemFailures).toEqual([]);
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
    const credited = outboxMessageId(CONSUMER, event.eventId, { index: 0 });
    const audit = outboxMessageId(CONSUMER, event.eventId, { name: 'audit' });
    const group = await outboxItem(groupItemPk(CREDITS_FIFO, event.accountId));
    expect(group).toMatchObject({
      seq: 1,
      destination: CREDITS_FIFO,
      groupId: event.accountId,
      origin: { consumer: CONSUMER },
      messages: [{ id: credited, kind: 'sqs-fifo', groupId: event.accountId }],
    });
    expect(JSON.parse(group?.messages[0].body)).toMatchObject({ paymentId: event.paymentId });
    const own = await outboxItem(`msg#${audit}`);
    expect(own?.messages).toEqual([
      { id: audit, destination: AUDIT_QUEUE, kind: 'sqs', body: `credited ${event.paymentId}` },
    ]);
    expect(Number(own?.expiresAt)).toBeGreaterThan(Date.now() / 1000 + 6 * 86_400);
  });

  it('writes nothing to the outbox when a business condition cancels the transaction', async () => {
    const event = payment({ accountId: `acc-${Date.now()}` });
    await ledger.setStock('sku-out', 0);
    const handler: MessageHandler<PaymentCaptured> = async (message, tx) => {
      await creditAndPublish(message, tx);
      tx.update({
        TableName: ledger.tables.stock,
        Key: { sku: 'sku-out' },
        UpdateExpression: 'ADD available :minus',
        ConditionExpression: 'available >= :one',
        ExpressionAttributeValues: { ':minus': -1, ':one': 1 },
      });
    };
    const outcomes = await processor(handler).processRecords(sqsEvent(sqsRecord(event)));

    expect(outcomes[0]?.error).toBeInstanceOf(BusinessConditionFailedError);
    expect(await outboxItem(groupItemPk(CREDITS_FIFO, event.accountId))).toBeUndefined();
    const audit = outboxMessageId(CONSUMER, event.eventId, { name: 'audit' });
    expect(await outboxItem(`msg#${audit}`)).toBeUndefined();
    // No commit: only the record of the failed attempt.
    expect(await ledger.inboxEntry(CONSUMER, event.eventId)).toMatchObject({
      status: 'FAILED',
      lastError: { name: 'BusinessConditionFailedError' },
    });
  });

  it('publishes the same ids on every attempt of one incoming message', async () => {
    const event = payment({ accountId: `acc-${Date.now()}` });
    const published: string[][] = [];
    let attempts = 0;
    const handler: MessageHandler<PaymentCaptured> = async (message, tx) => {
      published.push(await creditAndPublishIds(message, tx));
      attempts += 1;
      if (attempts === 1) throw new Error('the first attempt fails after publishing');
    };
    const run = processor(handler);
    const record = sqsRecord(event);
    expect((await run.process(sqsEvent(record))).batchItemFailures).toHaveLength(1);
    expect(await outboxItem(groupItemPk(CREDITS_FIFO, event.accountId))).toBeUndefined();
    // SQS delivers the message again, with a new receive: the same ids are published.
    expect(
      (await run.process(sqsEvent({ ...record, messageId: 'redelivered' }))).batchItemFailures,
    ).toEqual([]);

    expect(published).toHaveLength(2);
    expect(published[1]).toEqual(published[0]);
    const group = await outboxItem(groupItemPk(CREDITS_FIFO, event.accountId));
    expect(idsOf(group)).toEqual([published[0]?.[0]]);
  });

  it('leaves one commit in the outbox when the commit is applied and its answer lost (injected), and when SQS redelivers after the commit', async () => {
    const event = payment({ accountId: `acc-${Date.now()}` });
    const client = new DynamoDBClient({
      endpoint: aws.endpoints.dynamodb,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    const lost = loseResponse(client, 'TransactWriteItemsCommand');
    const run = processor(creditAndPublish, { store: storeWith(client) });

    const first = await run.processRecords(sqsEvent(sqsRecord(event)));
    expect(lost.injected()).toBe(1);
    expect(first[0]?.status).toBe(RecordStatus.Duplicate);
    // The function crashed before answering: the same message arrives again.
    const again = await run.processRecords(sqsEvent(sqsRecord(event, { messageId: 'again' })));
    expect(again[0]?.status).toBe(RecordStatus.Duplicate);

    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
    const group = await outboxItem(groupItemPk(CREDITS_FIFO, event.accountId));
    expect(group?.seq).toBe(1);
    const changes = (await readStream(aws.dynamodb, outboxTable)).filter(
      ({ pk }) => pk === groupItemPk(CREDITS_FIFO, event.accountId),
    );
    expect(changes.map(({ eventName }) => eventName)).toEqual(['INSERT']);
    client.destroy();
  });

  it("gives a group's messages of one transaction one item, and each commit to the group one stream record, in commit order", async () => {
    const accountId = `acc-${Date.now()}`;
    const events = [payment({ accountId }), payment({ accountId }), payment({ accountId })];
    const handler: MessageHandler<PaymentCaptured> = async ({ body }, tx) => {
      tx.publish({
        destination: CREDITS_FIFO,
        groupId: accountId,
        body: `${body.paymentId}:debit`,
      });
      tx.publish({
        destination: CREDITS_FIFO,
        groupId: accountId,
        body: `${body.paymentId}:credit`,
      });
    };
    const run = processor(handler);
    for (const event of events) await run.process(sqsEvent(sqsRecord(event)));

    const pk = groupItemPk(CREDITS_FIFO, accountId);
    const changes = (await readStream(aws.dynamodb, outboxTable)).filter(
      (change) => change.pk === pk,
    );
    expect(changes.map(({ eventName }) => eventName)).toEqual(['INSERT', 'MODIFY', 'MODIFY']);
    const bodies = changes.map(({ newImage }) =>
      ((newImage?.messages ?? []) as Array<{ body: string }>).map(({ body }) => body),
    );
    expect(bodies).toEqual(
      events.map(({ paymentId }) => [`${paymentId}:debit`, `${paymentId}:credit`]),
    );
    expect(changes.map(({ newImage }) => Number(newImage?.seq))).toEqual([1, 2, 3]);
  });

  it("refuses the handler's own write to the outbox table, so nothing is relayed without an id", async () => {
    const event = payment();
    const handler: MessageHandler<PaymentCaptured> = async (_, tx) => {
      tx.put({ TableName: outboxTable, Item: { pk: 'msg#forged', messages: [] } });
    };
    const outcomes = await processor(handler).processRecords(sqsEvent(sqsRecord(event)));

    expect(outcomes[0]?.error).toBeInstanceOf(TransactionLimitError);
    expect(outcomes[0]?.error).toMatchObject({ limit: TransactionLimit.OutboxTable });
    expect(await outboxItem('msg#forged')).toBeUndefined();
  });

  it('fails a message published to no outbox with OutgoingMessageError, committing nothing', async () => {
    const event = payment({ accountId: `acc-${Date.now()}` });
    const outcomes = await processor(creditAndPublish, { store: ledger.store }).processRecords(
      sqsEvent(sqsRecord(event)),
    );

    expect(outcomes[0]?.error).toBeInstanceOf(OutgoingMessageError);
    expect(await ledger.balanceOf(event.accountId)).toBe(0);
  });
});

describe('an outbox relayed by an EventBridge pipe (one SQS queue, one message per item)', () => {
  const pipeStore = () =>
    new DynamoDBInboxStore({
      tableName: ledger.tables.inbox,
      client: aws.dynamodb,
      outbox: { tableName: outboxTable, pipeDestination: CREDITS_FIFO },
    });
  const credit =
    (extra: (tx: Parameters<MessageHandler<PaymentCaptured>>[1]) => void) =>
    async (...[message, tx]: Parameters<MessageHandler<PaymentCaptured>>) => {
      await ledger.applyPayment(message, tx);
      tx.publish({ destination: CREDITS_FIFO, groupId: message.body.accountId, body: { n: 1 } });
      extra(tx);
    };

  it("commits a message to the pipe's queue in an item of its own group", async () => {
    const event = payment({ accountId: `acc-pipe-${Date.now()}` });
    const [outcome] = await processor(
      credit(() => {}),
      { store: pipeStore() },
    ).processRecords(sqsEvent(sqsRecord(event)));

    expect(outcome?.status).toBe(RecordStatus.Processed);
    const item = await outboxItem(groupItemPk(CREDITS_FIFO, event.accountId));
    expect(idsOf(item)).toEqual([outboxMessageId(CONSUMER, event.eventId, { index: 0 })]);
  });

  it.each([
    [
      'another destination',
      'destination',
      (tx: Tx) => tx.publish({ destination: AUDIT_QUEUE, body: 'x' }),
    ],
    [
      'a second message to the group',
      'groupId',
      (tx: Tx) => tx.publish({ destination: CREDITS_FIFO, groupId: 'acc', body: 'x' }),
    ],
    [
      'a body that outgrows an SQS message once the pipe escapes it',
      'body',
      (tx: Tx) =>
        tx.publish({ destination: CREDITS_FIFO, groupId: 'other', body: '"'.repeat(140_000) }),
    ],
    [
      'message attributes',
      'attributes',
      (tx: Tx) =>
        tx.publish({
          destination: CREDITS_FIFO,
          groupId: 'other',
          body: 'x',
          attributes: { a: 'b' },
        }),
    ],
  ])(
    'refuses %s with OutgoingMessageError naming the field, committing nothing',
    async (_, field, extra) => {
      const event = payment({ accountId: 'acc' });
      const before = await ledger.balanceOf('acc');
      const [outcome] = await processor(credit(extra), { store: pipeStore() }).processRecords(
        sqsEvent(sqsRecord({ ...event, accountId: 'acc' })),
      );

      expect(outcome?.error).toBeInstanceOf(OutgoingMessageError);
      expect(outcome?.error).toMatchObject({ field, index: 1 });
      expect(await ledger.balanceOf('acc')).toBe(before);
    },
  );
});

type Tx = Parameters<MessageHandler<PaymentCaptured>>[1];
