import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { OUTBOX_PIPE_FIFO_PARAMETERS } from '../../src/cdk/OutboxPipe.js';
import {
  createBatchProcessor,
  DynamoDBInboxStore,
  MessageSource,
  RecordStatus,
} from '../../src/index.js';
import type { OutgoingMessage } from '../../src/outbox/OutgoingMessage.js';
import { type OutboxItem, outboxItem } from '../../src/outbox/outboxItem.js';
import { pipedRecordBytes } from '../../src/outbox/pipedRecordBytes.js';
import { itemPlanOf } from '../../src/outbox/planOutboxItems.js';
import { toRecord } from '../../tools/local/LocalEventSourceMapping.js';
import { payment, useLedger } from '../support/ledgerFixture.js';
import { takeMessages } from '../support/receiveMessages.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';
import { pipeEvent, readStreamRecords } from '../support/streamRecords.js';

const { aws, ledger } = useLedger();

/** Bodies whose every byte must survive the pipe: each needs escaping or is more than ASCII. */
const BODIES = [
  '{"note":"say \\"hi\\"","path":"C:\\\\temp"}',
  'back\\slash \\n not a newline, \\u0041 not an A',
  'line one\nline two\r\n\ttabbed \u0001 control',
  'crédit € 日本語 ÿ',
  'paid 🎉 👍🏽',
];
const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/** The value at a pipe's JSON path (`$.a.b[0].c`) in a record, as Pipes evaluates it. */
function valueAt(record: unknown, path: string): unknown {
  return path
    .replace(/^\$\./, '')
    .split(/\.|\[(\d+)\]/)
    .filter((step) => step !== undefined && step !== '')
    .reduce<unknown>((at, step) => (at as Record<string, unknown> | undefined)?.[step], record);
}

interface PipeCase {
  readonly name: string;
  readonly fifo: boolean;
}

/** An outbox table and its pipe's queue, the published bodies and their ids, the piped records. */
async function publishThroughPipe({ fifo }: PipeCase) {
  const outboxTable = await aws.createOutboxTable(aws.uniqueName('outbox-pipe'));
  const queue = await aws.createQueue(`${aws.uniqueName('credits')}${fifo ? '.fifo' : ''}`);
  const published = new Map<string, string>();
  const upstream = createBatchProcessor(
    async (_message, tx) => {
      BODIES.forEach((body, index) => {
        const id = tx.publish({
          destination: queue.url,
          body,
          ...(fifo ? { groupId: `acc-${index}` } : {}),
        });
        published.set(id, body);
      });
    },
    {
      store: new DynamoDBInboxStore({
        tableName: ledger.tables.inbox,
        client: aws.dynamodb,
        outbox: { tableName: outboxTable, pipeDestination: queue.url },
      }),
      consumer: 'ledger-upstream',
      key: ({ body }) => (body as { eventId: string }).eventId,
      observability: { logger: recordingLogger() },
    },
  );
  const [outcome] = await upstream.processRecords(sqsEvent(sqsRecord(payment())));
  expect(outcome?.status).toBe(RecordStatus.Processed);
  const { streamArn, records } = await readStreamRecords(aws.dynamodb, outboxTable);
  // The pipe's filter: new and changed items only.
  const piped = records.filter((record) => ['INSERT', 'MODIFY'].includes(record.eventName ?? ''));
  return { outboxTable, queue, published, streamArn, piped };
}

/** The group and deduplication id the pipe reads from a record by `OutboxPipe`'s paths. */
function pipeIds(event: Record<string, unknown>): { groupId: string; dedupId: string } {
  const groupId = valueAt(event, OUTBOX_PIPE_FIFO_PARAMETERS.messageGroupId);
  const dedupId = valueAt(event, OUTBOX_PIPE_FIFO_PARAMETERS.messageDeduplicationId);
  if (typeof groupId !== 'string' || typeof dedupId !== 'string') {
    throw new Error("the pipe's FIFO paths name no string in the record");
  }
  return { groupId, dedupId };
}

/** Sends a piped record to the queue as the pipe would, on FIFO with the pipe's paths. */
async function sendPiped(queueUrl: string, event: Record<string, unknown>, copy: number) {
  const fifo = queueUrl.endsWith('.fifo') ? pipeIds(event) : undefined;
  await aws.sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: JSON.stringify(event),
      // A second copy stands for a retried batch past the FIFO's 5-minute deduplication.
      ...(fifo
        ? { MessageGroupId: fifo.groupId, MessageDeduplicationId: `${fifo.dedupId}-${copy}` }
        : {}),
    }),
  );
}

/** A consumer of the pipe's queue that keeps each payload's text as is, by outbox id. */
function downstreamConsumer(applied: Map<string, string[]>) {
  return createBatchProcessor(
    async (message, tx) => {
      const id = message.envelope.kind === MessageSource.Outbox ? message.envelope.messageId : '';
      applied.set(id, [...(applied.get(id) ?? []), message.body as string]);
      tx.update({
        TableName: ledger.tables.accounts,
        Key: { accountId: `notified-${id}` },
        UpdateExpression: 'ADD balanceCents :one',
        ExpressionAttributeValues: { ':one': 1 },
      });
    },
    {
      store: ledger.store,
      consumer: 'notifier',
      sources: [MessageSource.Outbox],
      parser: (text) => text,
      performance: { concurrency: 1 },
      observability: { logger: recordingLogger() },
    },
  );
}

const CASES: PipeCase[] = [
  { name: 'a FIFO queue (group items, updated)', fifo: true },
  { name: 'a standard queue (items of their own, put)', fifo: false },
];

describe('an outbox relayed by an EventBridge pipe without an input template, read downstream', () => {
  it.each(CASES)(
    'applies once each body, byte for byte, that the real stream record carries to $name, though sent twice',
    async (pipeCase) => {
      const { queue, published, streamArn, piped } = await publishThroughPipe(pipeCase);
      expect(piped).toHaveLength(BODIES.length);
      if (pipeCase.fifo) {
        // The construct's paths give each record its message's group and outbox id.
        const ids = piped.map((record) => pipeIds(pipeEvent(record, streamArn)));
        expect(new Map(ids.map(({ dedupId, groupId }) => [dedupId, groupId]))).toEqual(
          new Map([...published.keys()].map((id, index) => [id, `acc-${index}`])),
        );
      }
      for (const copy of [1, 2]) {
        for (const record of piped) await sendPiped(queue.url, pipeEvent(record, streamArn), copy);
      }
      const received = await take(queue.url, 2 * BODIES.length);
      expect(received).toHaveLength(2 * BODIES.length);

      const applied = new Map<string, string[]>();
      const outcomes = await downstreamConsumer(applied).processRecords(
        sqsEvent(...received.map((message) => toRecord(message, queue.arn))),
      );

      const statuses = outcomes.map(({ status }) => status);
      expect(statuses.filter((status) => status === RecordStatus.Processed)).toHaveLength(5);
      expect(statuses.filter((status) => status === RecordStatus.Duplicate)).toHaveLength(5);
      expect(applied).toEqual(new Map([...published].map(([id, body]) => [id, [body]])));
      for (const id of published.keys()) {
        expect(await ledger.balanceOf(`notified-${id}`)).toBe(1);
      }
    },
  );

  it.each(CASES)(
    "counts the item of each real stream record to $name exactly as the record carries it, and the whole record within the store's bound",
    async (pipeCase) => {
      const { outboxTable, streamArn, piped } = await publishThroughPipe(pipeCase);
      expect(piped).toHaveLength(BODIES.length);
      for (const record of piped) {
        const counted = countedAtPublish(record, outboxTable);
        const { seq: _seq, ...image } = record.dynamodb?.NewImage ?? {};
        const carried =
          utf8(JSON.stringify(image)) + utf8(JSON.stringify(record.dynamodb?.Keys ?? {}));
        expect(counted.imageBytes).toBe(carried);
        const recordBytes = utf8(JSON.stringify(pipeEvent(record, streamArn)));
        expect(recordBytes - counted.imageBytes).toBeLessThanOrEqual(counted.envelopeBytes);
        expect(recordBytes).toBeLessThanOrEqual(counted.totalBytes);
      }
    },
  );

  it("still applies the body OutboxPipe sent before ({ outboxMessageId, body }), under the same key as the record's", async () => {
    const { queue, published, streamArn, piped } = await publishThroughPipe({
      name: 'legacy',
      fifo: false,
    });
    const [record] = piped;
    if (record === undefined) throw new Error('the outbox wrote no stream record');
    const id = valueAt(
      pipeEvent(record, streamArn),
      OUTBOX_PIPE_FIFO_PARAMETERS.messageDeduplicationId,
    );
    const body = published.get(id as string);
    await aws.sqs.send(
      new SendMessageCommand({
        QueueUrl: queue.url,
        MessageBody: JSON.stringify({ outboxMessageId: id, body }),
      }),
    );
    await sendPiped(queue.url, pipeEvent(record, streamArn), 1);
    const received = await take(queue.url, 2);
    expect(received).toHaveLength(2);

    const applied = new Map<string, string[]>();
    const outcomes = await downstreamConsumer(applied).processRecords(
      sqsEvent(...received.map((message) => toRecord(message, queue.arn))),
    );

    expect(outcomes.map(({ status }) => status).sort()).toEqual(
      [RecordStatus.Duplicate, RecordStatus.Processed].sort(),
    );
    expect(applied).toEqual(new Map([[id, [body]]]));
  });
});

const take = (queueUrl: string, count: number) => takeMessages(aws.sqs, queueUrl, count);

/**
 * What the store counted for a record's message when the handler published it: the item
 * rebuilt from the message and the commit's attributes the record carries, as the store builds it.
 */
function countedAtPublish(record: _Record, tableName: string) {
  const image = unmarshall((record.dynamodb?.NewImage ?? {}) as never) as {
    messages: OutgoingMessage[];
    origin: OutboxItem;
    committedAt: string;
    expiresAt: number;
    formatVersion: number;
  };
  const [message] = image.messages;
  if (message === undefined) throw new Error('the record holds no message');
  const common = {
    origin: image.origin,
    committedAt: image.committedAt,
    expiresAt: image.expiresAt,
    formatVersion: image.formatVersion,
  };
  return pipedRecordBytes(outboxItem(itemPlanOf(message), common), tableName);
}
