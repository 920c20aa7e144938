import { randomUUID } from 'node:crypto';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { type Message, SendMessageCommand } from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxMessageIdField, outboxMessageId } from '../../src/constants/index.js';
import { InvalidConfigurationError } from '../../src/errors.js';
import { createBatchProcessor, DynamoDBInboxStore, type MessageHandler } from '../../src/index.js';
import { AwsOutboxSender, redriveOutbox } from '../../src/relay/index.js';
import { queueDepth } from '../../tools/local/queueDepth.js';
import { eventually } from '../support/eventually.js';
import { PaymentCaptured, payment, useLedger } from '../support/ledgerFixture.js';
import { takeMessages } from '../support/receiveMessages.js';
import { startRelay } from '../support/relayOutbox.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';

const { aws, ledger } = useLedger();
const CONSUMER = 'ledger';
let streams: DynamoDBStreamsClient;

beforeAll(() => {
  streams = new DynamoDBStreamsClient({
    endpoint: aws.endpoints.dynamodb,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
});
afterAll(() => streams?.destroy());

/** An outbox of its own, its relay's dead-letter queue, and a relay that fails while `down`. */
async function outboxWithRelay(
  options: { down?: () => boolean; dlqAttributes?: Record<string, string> } = {},
) {
  const table = await aws.createOutboxTable(aws.uniqueName('outbox'));
  const dlq = await aws.createQueue(aws.uniqueName('relay-dlq'), options.dlqAttributes);
  const relay = await startRelay(aws, table, dlq.url, {
    wrap: (inner) => async (event, context) => {
      if (options.down?.()) throw new Error('the relay cannot reach its destinations');
      return inner.process(event, context);
    },
    // Lambda gives a failing batch up at once: its place in the stream goes to the queue.
    policy: { maximumRetryAttempts: 0, bisectBatchOnFunctionError: false },
  });
  const publish = (handler: MessageHandler<PaymentCaptured>) =>
    createBatchProcessor(handler, {
      store: new DynamoDBInboxStore({
        tableName: ledger.tables.inbox,
        client: aws.dynamodb,
        outbox: { tableName: table },
      }),
      consumer: CONSUMER,
      schema: PaymentCaptured,
      key: ({ body }) => body.eventId,
      observability: { logger: recordingLogger() },
    });
  return { table, dlq, relay, publish };
}

const take = (queueUrl: string, count: number, waitMillis?: number) =>
  takeMessages(aws.sqs, queueUrl, count, waitMillis);

/**
 * How long the relay may take to dead-letter what it read: it does so within a few seconds; the
 * bound only turns a relay that never does into a clear failure, and is generous so that a
 * machine shared with other heavy jobs never meets it while the relay behaves. Not a speed target.
 */
const RELAY_LETTERS_BOUND_MILLIS = 45_000;

/**
 * Waits until the relay has settled what it read — at least `letters` dead letters in its queue,
 * then nothing new in the stream — and stops it.
 */
async function settled(
  relay: Awaited<ReturnType<typeof startRelay>>,
  queueUrl: string,
  letters: number,
): Promise<void> {
  try {
    await eventually(
      `${letters} dead letter(s) from the relay`,
      () => queueDepth(aws.sqs, queueUrl),
      (depth) => depth >= letters,
      RELAY_LETTERS_BOUND_MILLIS,
    );
    await relay.mapping.drain();
  } finally {
    await relay.stop();
  }
}

/** The URL a queue named `name` will have: it does not exist yet, so sends to it are refused. */
const missingQueue = (name: string) =>
  `${aws.endpoints.sqs.replace(/\/$/, '')}/000000000000/${name}`;

/**
 * A payment whose handler publishes `bodies` to a queue that does not exist yet: the relay
 * dead-letters each message (refused), then stops. The queue's name is returned to create it.
 */
async function refusedMessages(bodies: readonly string[]) {
  const { dlq, relay, publish } = await outboxWithRelay();
  const name = aws.uniqueName('missing');
  const event = payment({ accountId: `acc-${randomUUID()}` });
  await publish(async (_, tx) => {
    for (const body of bodies) tx.publish({ destination: missingQueue(name), body });
  }).process(sqsEvent(sqsRecord(event)));
  await settled(relay, dlq.url, bodies.length);
  return { dlq, name, event };
}

const idOf = (message: Message | undefined) =>
  message?.MessageAttributes?.[OutboxMessageIdField.Attribute]?.StringValue;

describe('redriveOutbox: the runbook of the relay dead-letter queue', () => {
  it("dead-letters a refused message too large for the relay's dead-letter queue without its body and attributes, goes on, and the redrive leaves it saying where the body is", async () => {
    const { dlq, relay, publish } = await outboxWithRelay({
      dlqAttributes: { MaximumMessageSize: '2048' },
    });
    const audit = await aws.createQueue(aws.uniqueName('audit'));
    const event = payment({ accountId: `acc-${randomUUID()}` });
    await publish(async (_, tx) => {
      // Fits its destination; escaped again inside the letter, it outgrows the 2 KiB queue.
      tx.publish({
        destination: missingQueue(aws.uniqueName('missing')),
        body: '{"note":"say \\"hi\\""}'.repeat(150),
        attributes: { type: 'credit' },
      });
      tx.publish({ destination: audit.url, body: 'after the refusal' });
    }).process(sqsEvent(sqsRecord(event)));
    await settled(relay, dlq.url, 1);

    const id = outboxMessageId(CONSUMER, event.eventId, { index: 0 });
    const [letter] = await take(dlq.url, 1);
    expect(Buffer.byteLength(letter?.Body ?? '')).toBeLessThanOrEqual(2048);
    const body = JSON.parse(letter?.Body ?? '{}');
    expect(body).toMatchObject({
      kind: 'sqs-inbox.outbox.dead-letter',
      reason: { error: 'DestinationRefusedError' },
      messageEnvelope: { id, kind: 'sqs' },
      omitted: { fields: ['message.body', 'message.attributes'] },
      record: { pk: `msg#${id}` },
    });
    expect(body.omitted.letterBytes).toBeGreaterThan(2048);
    expect(body).not.toHaveProperty('message');
    expect(idOf(letter)).toBe(id);
    expect((await take(audit.url, 1))[0]?.Body).toBe('after the refusal');

    await aws.sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: letter?.Body }));
    const outcomes = await redriveOutbox({
      deadLetter: { queueUrl: dlq.url },
      sender: new AwsOutboxSender({ sqsClient: aws.sqs }),
    });
    expect(outcomes).toEqual([
      expect.objectContaining({ kind: 'message', status: 'left', outboxIds: [id] }),
    ]);
    expect(outcomes[0]?.reason).toContain('did not fit in the dead-letter queue');
    expect(outcomes[0]?.reason).toContain(`the outbox item msg#${id}`);
  });

  it("dead-letters an unreadable record too large for the relay's dead-letter queue without its image, and the redrive leaves it saying where the item is", async () => {
    const { table, dlq, relay } = await outboxWithRelay({
      dlqAttributes: { MaximumMessageSize: '2048' },
    });
    const pk = `msg#written-by-other-code-${randomUUID()}`;
    await aws.documentClient.send(
      new PutCommand({
        TableName: table,
        Item: { pk, messages: 'not a list', note: 'x'.repeat(4_000) },
      }),
    );
    await settled(relay, dlq.url, 1);

    const [letter] = await take(dlq.url, 1);
    const body = JSON.parse(letter?.Body ?? '{}');
    expect(body).toMatchObject({
      kind: 'sqs-inbox.outbox.dead-letter',
      reason: { error: 'OutboxRecordError' },
      omitted: { fields: ['image'] },
      record: { pk },
    });
    expect(body).not.toHaveProperty('image');

    await aws.sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: letter?.Body }));
    const outcomes = await redriveOutbox({
      deadLetter: { queueUrl: dlq.url },
      sender: new AwsOutboxSender({ sqsClient: aws.sqs }),
    });
    expect(outcomes).toEqual([expect.objectContaining({ kind: 'record', status: 'left' })]);
    expect(outcomes[0]?.reason).toContain(
      `its image did not fit in the letter; read the outbox item ${pk}`,
    );
  });

  it('sends a refused message again, with its outbox id, once its destination exists, and deletes the dead letter', async () => {
    const { dlq, name, event } = await refusedMessages(['credited']);
    const created = await aws.createQueue(name);

    const outcomes = await redriveOutbox({
      deadLetter: { queueUrl: dlq.url },
      sender: new AwsOutboxSender({ sqsClient: aws.sqs }),
    });

    const id = outboxMessageId(CONSUMER, event.eventId, { index: 0 });
    expect(outcomes).toEqual([
      expect.objectContaining({ kind: 'message', status: 'redriven', outboxIds: [id] }),
    ]);
    const [resent] = await take(created.url, 1);
    expect(resent?.Body).toBe('credited');
    expect(idOf(resent)).toBe(id);
    expect(await take(dlq.url, 1, 2_000)).toEqual([]);
  });

  it('reads a batch Lambda gave up on back from the stream and relays it, with its ids, and deletes its record', async () => {
    let down = true;
    const { dlq, relay, publish } = await outboxWithRelay({ down: () => down });
    const downstream = await aws.createQueue(aws.uniqueName('credits'));
    const events = [1, 2, 3].map(() => payment({ accountId: `acc-${randomUUID()}` }));
    await publish(async ({ body }, tx) => {
      tx.publish({ destination: downstream.url, body: body.paymentId });
    }).process(sqsEvent(...events.map((event) => sqsRecord(event))));
    await settled(relay, dlq.url, 1);
    down = false;
    // The records may have come in one batch or several: each given up, each its own record.
    const given = await take(dlq.url, 3, 3_000);
    expect(given.length).toBeGreaterThan(0);
    for (const letter of given) {
      expect(JSON.parse(letter.Body ?? '{}')).toHaveProperty(
        'DDBStreamBatchInfo.startSequenceNumber',
      );
      // Taken to look at it: back it goes, for the redrive to find.
      await aws.sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: letter.Body }));
    }

    const outcomes = await redriveOutbox({
      streamsClient: streams,
      deadLetter: { queueUrl: dlq.url },
      sender: new AwsOutboxSender({ sqsClient: aws.sqs }),
    });

    const ids = events.map((event) => outboxMessageId(CONSUMER, event.eventId, { index: 0 }));
    expect(outcomes).toHaveLength(given.length);
    for (const outcome of outcomes)
      expect(outcome).toMatchObject({ kind: 'batch', status: 'redriven' });
    expect(outcomes.flatMap((outcome) => outcome.outboxIds).sort()).toEqual([...ids].sort());
    const sent = await take(downstream.url, 3);
    expect(sent.map(idOf).sort()).toEqual([...ids].sort());
    expect(sent.map((m) => m.Body).sort()).toEqual(events.map((e) => e.paymentId).sort());
    expect(await take(dlq.url, 1, 2_000)).toEqual([]);
  });

  it('leaves in the queue, visible at once and with a reason, what it cannot redrive: a destination still missing, a body that is no dead letter', async () => {
    const { dlq } = await refusedMessages(['still refused']);
    await aws.sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: 'not json' }));

    const outcomes = await redriveOutbox({
      deadLetter: { queueUrl: dlq.url },
      sender: new AwsOutboxSender({ sqsClient: aws.sqs }),
    });

    expect(outcomes).toHaveLength(2);
    expect(outcomes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'message',
          status: 'left',
          reason: expect.stringMatching(/NonExistentQueue|QueueDoesNotExist|does not exist/i),
        }),
        expect.objectContaining({ kind: 'unknown', status: 'left' }),
      ]),
    );
    expect(await take(dlq.url, 2, 5_000)).toHaveLength(2);
  });

  it('relays a given-up batch whose destination still refuses: its message dead-lettered anew, said in the reason, its new letter left with its own', async () => {
    let down = true;
    const { dlq, relay, publish } = await outboxWithRelay({ down: () => down });
    const destination = missingQueue(aws.uniqueName('gone'));
    const event = payment();
    await publish(async (_, tx) => {
      tx.publish({ destination, body: 'refused twice' });
    }).process(sqsEvent(sqsRecord(event)));
    await settled(relay, dlq.url, 1);
    down = false;

    const outcomes = await redriveOutbox({
      streamsClient: streams,
      deadLetter: { queueUrl: dlq.url },
      sender: new AwsOutboxSender({ sqsClient: aws.sqs }),
    });

    expect(outcomes[0]).toMatchObject({
      kind: 'batch',
      status: 'redriven',
      reason: expect.stringContaining('1 of its messages refused again and dead-lettered anew'),
    });
    // The new letter, if this run met it, was tried once more and left: the queue keeps it.
    expect(outcomes.slice(1)).toEqual(
      outcomes.slice(1).map(() => expect.objectContaining({ kind: 'message', status: 'left' })),
    );
    const [anew] = await take(dlq.url, 2, 3_000);
    expect(JSON.parse(anew?.Body ?? '{}')).toMatchObject({
      kind: 'sqs-inbox.outbox.dead-letter',
      message: { id: outboxMessageId(CONSUMER, event.eventId, { index: 0 }), destination },
    });
  });

  it('leaves a batch it cannot read back whole (its last record not in the stream) with StreamBatchIncompleteError, relaying none of it', async () => {
    let down = true;
    const { dlq, relay, publish } = await outboxWithRelay({ down: () => down });
    const downstream = await aws.createQueue(aws.uniqueName('credits'));
    await publish(async ({ body }, tx) => {
      tx.publish({ destination: downstream.url, body: body.paymentId });
    }).process(sqsEvent(sqsRecord(payment())));
    await settled(relay, dlq.url, 1);
    down = false;
    const [given] = await take(dlq.url, 1);
    const letter = JSON.parse(given?.Body ?? '{}');
    const end = BigInt(letter.DDBStreamBatchInfo.endSequenceNumber) + 10n ** 12n;
    letter.DDBStreamBatchInfo.endSequenceNumber = String(end);
    await aws.sqs.send(
      new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: JSON.stringify(letter) }),
    );

    const outcomes = await redriveOutbox({
      streamsClient: streams,
      deadLetter: { queueUrl: dlq.url },
      sender: new AwsOutboxSender({ sqsClient: aws.sqs }),
    });

    expect(outcomes).toEqual([
      expect.objectContaining({
        kind: 'batch',
        status: 'left',
        reason: expect.stringMatching(/could not be read back whole.*nothing of it was relayed/),
      }),
    ]);
    expect(await take(downstream.url, 1, 2_000)).toEqual([]);
    expect(await take(dlq.url, 1)).toHaveLength(1);
  });

  it('handles at most maxMessages dead letters, leaving the others untouched', async () => {
    const { dlq, name } = await refusedMessages(['one', 'two']);
    const created = await aws.createQueue(name);

    const outcomes = await redriveOutbox({
      maxMessages: 1,
      deadLetter: { queueUrl: dlq.url },
      sender: new AwsOutboxSender({ sqsClient: aws.sqs }),
    });

    expect(outcomes).toEqual([expect.objectContaining({ kind: 'message', status: 'redriven' })]);
    expect(await take(created.url, 2, 3_000)).toHaveLength(1);
    expect(await take(dlq.url, 2, 3_000)).toHaveLength(1);
  });

  it('in a dry run sends nothing and deletes nothing, and says what it would redrive', async () => {
    const { dlq, name } = await refusedMessages(['wait']);
    const created = await aws.createQueue(name);

    const outcomes = await redriveOutbox({
      dryRun: true,
      deadLetter: { queueUrl: dlq.url },
      sender: new AwsOutboxSender({ sqsClient: aws.sqs }),
    });

    expect(outcomes).toEqual([
      expect.objectContaining({ kind: 'message', status: 'wouldRedrive' }),
    ]);
    expect(await take(created.url, 1, 2_000)).toEqual([]);
    expect(await take(dlq.url, 1)).toHaveLength(1);
  });

  it('refuses an option that is not a queue URL, naming it', async () => {
    await expect(redriveOutbox({ deadLetter: { queueUrl: 'relay-dlq' } })).rejects.toThrow(
      InvalidConfigurationError,
    );
    await expect(redriveOutbox({ deadLetter: { queueUrl: 'relay-dlq' } })).rejects.toThrow(
      /"deadLetter.queueUrl"/,
    );
  });
});
