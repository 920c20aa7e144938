import { randomUUID } from 'node:crypto';
import type { Message } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OutboxMessageIdField, outboxMessageId } from '../../src/constants/index.js';
import {
  createBatchProcessor,
  DynamoDBInboxStore,
  type MessageHandler,
  MessageSource,
  RecordStatus,
} from '../../src/index.js';
import { toRecord } from '../../tools/local/LocalEventSourceMapping.js';
import { PaymentCaptured, payment, useLedger } from '../support/ledgerFixture.js';
import { takeMessages } from '../support/receiveMessages.js';
import { startRelay } from '../support/relayOutbox.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';
import { useUpstreams } from '../support/upstreams.js';

const { aws, ledger } = useLedger();
const upstreams = useUpstreams(aws);
const CONSUMER = 'ledger';
const queues = {} as Record<
  'credits' | 'audit' | 'dlq' | 'topicSink' | 'busSink',
  { url: string; arn: string }
>;
let outboxTable: string;
let relay: Awaited<ReturnType<typeof startRelay>>;
let topicArn: string;
let busArn: string;

beforeAll(async () => {
  outboxTable = await aws.createOutboxTable(aws.uniqueName('outbox'));
  queues.credits = await aws.createQueue(`${aws.uniqueName('credits')}.fifo`);
  queues.audit = await aws.createQueue(aws.uniqueName('audit'));
  queues.dlq = await aws.createQueue(aws.uniqueName('relay-dlq'));
  queues.topicSink = await aws.createQueue(aws.uniqueName('topic-sink'));
  queues.busSink = await aws.createQueue(aws.uniqueName('bus-sink'));
  topicArn = (await upstreams.topicTo(queues.topicSink.arn, { raw: true })).topicArn;
  busArn = (await upstreams.busTo(queues.busSink.arn, 'ledger')).busArn;
  relay = await startRelay(aws, outboxTable, queues.dlq.url);
});
afterAll(() => relay?.stop());

function processor(handler: MessageHandler<PaymentCaptured>) {
  return createBatchProcessor(handler, {
    store: new DynamoDBInboxStore({
      tableName: ledger.tables.inbox,
      client: aws.dynamodb,
      outbox: { tableName: outboxTable },
    }),
    consumer: CONSUMER,
    schema: PaymentCaptured,
    key: ({ body }) => body.eventId,
    observability: { logger: recordingLogger() },
  });
}

const take = (queueUrl: string, count: number, waitMillis?: number) =>
  takeMessages(aws.sqs, queueUrl, count, waitMillis);

const idOf = (message: Message | undefined) =>
  message?.MessageAttributes?.[OutboxMessageIdField.Attribute]?.StringValue;

describe('the outbox relay, fed by the stream', () => {
  it('sends each committed message where it goes, with its outbox id: FIFO and standard queues, an SNS topic, an event bus', async () => {
    const event = payment({ accountId: `acc-${randomUUID()}` });
    await processor(async ({ body }, tx) => {
      tx.publish({
        destination: queues.credits.url,
        groupId: body.accountId,
        body: { credited: body.paymentId },
      });
      tx.publish({
        destination: queues.audit.url,
        body: 'audit line',
        attributes: { type: 'audit' },
      });
      tx.publish({ destination: topicArn, body: 'to the topic' });
      tx.publish({
        destination: busArn,
        body: { paymentId: body.paymentId },
        source: 'ledger',
        detailType: 'PaymentCredited',
      });
    }).process(sqsEvent(sqsRecord(event)));
    await relay.mapping.drain();
    const id = (index: number) => outboxMessageId(CONSUMER, event.eventId, { index });

    const [credit] = await take(queues.credits.url, 1);
    expect(JSON.parse(credit?.Body ?? '')).toEqual({ credited: event.paymentId });
    expect(idOf(credit)).toBe(id(0));
    expect(credit?.Attributes).toMatchObject({
      MessageGroupId: event.accountId,
      MessageDeduplicationId: id(0),
    });
    const [audit] = await take(queues.audit.url, 1);
    expect(audit?.Body).toBe('audit line');
    expect(audit?.MessageAttributes?.type?.StringValue).toBe('audit');
    expect(idOf(audit)).toBe(id(1));
    const [viaTopic] = await take(queues.topicSink.url, 1);
    expect(viaTopic?.Body).toBe('to the topic');
    expect(idOf(viaTopic)).toBe(id(2));
    const [viaBus] = await take(queues.busSink.url, 1);
    expect(JSON.parse(viaBus?.Body ?? '')).toMatchObject({
      source: 'ledger',
      'detail-type': 'PaymentCredited',
      detail: { paymentId: event.paymentId, outboxMessageId: id(3) },
    });
  });

  it("keeps each group's order from commit to FIFO queue, across incoming messages and interleaved groups", async () => {
    const accounts = [`acc-${randomUUID()}`, `acc-${randomUUID()}`];
    const run = processor(async ({ body }, tx) => {
      tx.publish({
        destination: queues.credits.url,
        groupId: body.accountId,
        body: body.paymentId,
      });
    });
    const committed: Record<string, string[]> = {
      [accounts[0] ?? '']: [],
      [accounts[1] ?? '']: [],
    };
    for (let i = 0; i < 12; i += 1) {
      const event = payment({ accountId: accounts[i % 3 === 0 ? 1 : 0] ?? '' });
      await run.process(sqsEvent(sqsRecord(event)));
      committed[event.accountId]?.push(event.paymentId);
    }
    await relay.mapping.drain();

    const received = await take(queues.credits.url, 12);
    for (const account of accounts) {
      const inGroup = received
        .filter((m) => m.Attributes?.MessageGroupId === account)
        .map((m) => m.Body);
      expect(inGroup).toEqual(committed[account]);
    }
  });

  it("moves a message its destination refuses to the relay's dead-letter queue, in full, with the reason, and sends the rest", async () => {
    const event = payment({ accountId: `acc-${randomUUID()}` });
    const nowhere = `${aws.endpoints.sqs.replace(/\/$/, '')}/000000000000/nowhere-${randomUUID().slice(0, 8)}`;
    await processor(async (_, tx) => {
      tx.publish({ destination: nowhere, body: 'lost?' });
      tx.publish({ destination: queues.audit.url, body: 'after the refusal' });
    }).process(sqsEvent(sqsRecord(event)));
    await relay.mapping.drain();

    const [letter] = await take(queues.dlq.url, 1);
    const body = JSON.parse(letter?.Body ?? '{}');
    expect(body).toMatchObject({
      kind: 'sqs-inbox.outbox.dead-letter',
      reason: {
        error: 'DestinationRefusedError',
        code: expect.stringMatching(/NonExistentQueue|QueueDoesNotExist/),
      },
      message: {
        id: outboxMessageId(CONSUMER, event.eventId, { index: 0 }),
        destination: nowhere,
        body: 'lost?',
      },
    });
    expect(letter?.MessageAttributes?.['outbox.error']?.StringValue).toBe(
      'DestinationRefusedError',
    );
    expect((await take(queues.audit.url, 1))[0]?.Body).toBe('after the refusal');
  });

  it('applies once downstream a message the relay sent twice (a crash after the send, before the checkpoint)', async () => {
    const downstreamQueue = await aws.createQueue(aws.uniqueName('downstream'));
    const crashOnce = await aws.createOutboxTable(aws.uniqueName('outbox-crash'));
    let crashed = false;
    const crashing = await startRelay(aws, crashOnce, queues.dlq.url, {
      wrap: (inner) => async (event, context) => {
        const response = await inner.process(event, context);
        if (!crashed) {
          crashed = true;
          throw new Error('the relay died after sending, before answering');
        }
        return response;
      },
    });
    const event = payment({ accountId: `acc-${randomUUID()}` });
    const upstream = createBatchProcessor(
      async ({ body }, tx) => {
        tx.publish({
          destination: downstreamQueue.url,
          body: { accountId: body.accountId, amountCents: body.amountCents },
        });
      },
      {
        store: new DynamoDBInboxStore({
          tableName: ledger.tables.inbox,
          client: aws.dynamodb,
          outbox: { tableName: crashOnce },
        }),
        consumer: 'ledger-upstream',
        schema: PaymentCaptured,
        key: ({ body }) => body.eventId,
        observability: { logger: recordingLogger() },
      },
    );
    await upstream.process(sqsEvent(sqsRecord(event)));
    await crashing.mapping.drain();
    await crashing.stop();

    const copies = await take(downstreamQueue.url, 2);
    expect(copies).toHaveLength(2);
    expect(idOf(copies[0])).toBe(idOf(copies[1]));
    // The downstream effect: the notified total of the account, in its transaction.
    const downstream = createBatchProcessor(
      async ({ body }, tx) => {
        tx.update({
          TableName: ledger.tables.accounts,
          Key: { accountId: `notified-${body.accountId}` },
          UpdateExpression: 'ADD balanceCents :a',
          ExpressionAttributeValues: { ':a': body.amountCents },
        });
      },
      {
        store: ledger.store,
        consumer: 'notifier',
        schema: z.object({ accountId: z.string(), amountCents: z.number() }),
        // No key function: a relayed message is keyed by its outbox id.
        sources: [MessageSource.Outbox],
        observability: { logger: recordingLogger() },
      },
    );
    const outcomes = await downstream.processRecords(
      sqsEvent(...copies.map((copy) => toRecord(copy, downstreamQueue.arn))),
    );
    expect(await ledger.balanceOf(`notified-${event.accountId}`)).toBe(event.amountCents);
    expect(outcomes.map(({ status }) => status).sort()).toEqual(
      [RecordStatus.Duplicate, RecordStatus.Processed].sort(),
    );
  });
});
