import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DeadLetterAttribute, inboxPk } from '../../src/constants/index.js';
import { InvalidConfigurationError } from '../../src/errors.js';
import {
  createBatchProcessor,
  type InboxMessage,
  type InboxOptions,
  type MessageHandler,
  MessageSource,
  PermanentError,
  type RecordOutcome,
  RecordStatus,
} from '../../src/index.js';
import { toRecord } from '../../tools/local/LocalEventSourceMapping.js';
import { PaymentCaptured, payment, useLedger } from '../support/ledgerFixture.js';
import {
  letRedrivePolicyMove,
  queueWithRedrivePolicy,
  receiveOne,
  redriveAsSqsDoes,
} from '../support/redrive.js';
import { recordingLogger, sqsEvent } from '../support/sqsRecords.js';
import { useUpstreams } from '../support/upstreams.js';

const { aws, ledger } = useLedger();
const upstreams = useUpstreams(aws);
const { Sns, SnsRaw, EventBridge, S3 } = MessageSource;

/** A ledger processor for the declared sources, keeping what its handler saw. */
function ledgerProcessor(
  sources: MessageSource[],
  overrides: Partial<InboxOptions<typeof PaymentCaptured>> = {},
) {
  const logger = recordingLogger();
  const seen: Array<InboxMessage<PaymentCaptured>> = [];
  const handler: MessageHandler<PaymentCaptured> = (message, tx) => {
    seen.push(message);
    return ledger.applyPayment(message, tx);
  };
  const processor = createBatchProcessor(handler, {
    store: ledger.store,
    consumer: 'ledger',
    schema: PaymentCaptured,
    sources,
    observability: { logger },
    ...overrides,
  });
  return { processor, logger, seen };
}

/** A queue subscribed to a new topic, and a payment published to the topic once. */
async function paymentPublished(name: string) {
  const queue = await aws.createQueue(aws.uniqueName(name));
  const topic = await upstreams.topicTo(queue.arn);
  const event = payment({ accountId: `acc-${name}-${Date.now()}` });
  await topic.publish({ Message: JSON.stringify(event) });
  return { queue, topic, event };
}

/** The next message of a queue, as Lambda hands it over. */
async function nextRecord(queue: { url: string; arn: string }): Promise<SQSRecord> {
  const message = await receiveOne(aws.sqs, queue.url);
  if (!message) throw new Error('no message arrived');
  return toRecord(message, queue.arn);
}

/**
 * What an upstream delivery retry (SNS or EventBridge) looks like to the consumer: the same
 * envelope in a new SQS message, with a new messageId.
 */
async function deliverAgain(
  queue: { url: string; arn: string },
  record: SQSRecord,
): Promise<SQSRecord> {
  await aws.sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: record.body }));
  const again = await nextRecord(queue);
  expect(again.messageId).not.toBe(record.messageId);
  return again;
}

async function processOne(
  processor: { processRecords(event: SQSEvent): Promise<RecordOutcome[]> },
  record: SQSRecord,
) {
  const [outcome] = await processor.processRecords(sqsEvent(record));
  return outcome;
}

/** Processes the queue's next record, then its envelope delivered again as an upstream retry. */
async function processDeliveredTwice(
  queue: { url: string; arn: string },
  processor: { processRecords(event: SQSEvent): Promise<RecordOutcome[]> },
) {
  const record = await nextRecord(queue);
  const first = await processOne(processor, record);
  const retried = await processOne(processor, await deliverAgain(queue, record));
  return { record, statuses: [first?.status, retried?.status] };
}

describe('an SNS topic in front of the queue', () => {
  it('applies a notification delivered twice once, and logs the second as a duplicate', async () => {
    const { queue, event } = await paymentPublished('sns');
    const { processor, logger } = ledgerProcessor([Sns]);

    const { statuses } = await processDeliveredTwice(queue, processor);

    expect(statuses).toEqual([RecordStatus.Processed, RecordStatus.Duplicate]);
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
    const duplicates = logger.lines.filter((line) => /^duplicate message/.test(line.message));
    expect(duplicates).toHaveLength(1);
  });

  it("gives the schema and handler the payload, the handler the notification's metadata, and keys by the SNS MessageId", async () => {
    const queue = await aws.createQueue(aws.uniqueName('sns-meta'));
    const topic = await upstreams.topicTo(queue.arn);
    const event = payment({ accountId: `acc-sns-meta-${Date.now()}` });
    const { MessageId } = await topic.publish({
      Message: JSON.stringify(event),
      Subject: 'captured',
      MessageAttributes: { origin: { DataType: 'String', StringValue: 'psp' } },
    });
    const { processor, seen } = ledgerProcessor([Sns]);

    await processOne(processor, await nextRecord(queue));

    expect(seen[0]?.body).toEqual(event);
    expect(seen[0]?.key).toBe(`sns:${MessageId}`);
    expect(seen[0]?.envelope).toMatchObject({
      kind: Sns,
      messageId: MessageId,
      topicArn: topic.topicArn,
      subject: 'captured',
      messageAttributes: { origin: { type: 'String', value: 'psp' } },
    });
  });

  it('hashes the payload only: the same notification re-signed is a duplicate, another payload under its id is refused', async () => {
    const { queue, event } = await paymentPublished('sns-hash');
    const { processor } = ledgerProcessor([Sns]);
    const record = await nextRecord(queue);
    const notification = JSON.parse(record.body);
    await processOne(processor, record);

    const resigned = {
      ...record,
      messageId: 'resigned',
      body: JSON.stringify({ ...notification, Signature: 'b3RoZXI=' }),
    };
    const altered = JSON.stringify({ ...event, amountCents: event.amountCents + 1 });
    const reused = {
      ...record,
      messageId: 'reused',
      body: JSON.stringify({ ...notification, Message: altered }),
    };

    expect((await processOne(processor, resigned))?.status).toBe(RecordStatus.Duplicate);
    const refused = await processOne(processor, reused);
    expect(refused?.status).toBe(RecordStatus.Failed);
    expect(refused?.error).toMatchObject({ name: 'PayloadMismatchError' });
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
  });

  it('acknowledges as a duplicate a notification whose handler refuses it after its own commit', async () => {
    const dlq = await aws.createQueue(aws.uniqueName('sns-refused-dlq'));
    const { queue } = await paymentPublished('sns-refused');
    const record = await nextRecord(queue);
    await processOne(ledgerProcessor([Sns]).processor, record);
    // Run again without the pre-check, the handler now finds the payment applied and refuses it.
    const refusing = createBatchProcessor(
      () => {
        throw new PermanentError('payment already applied');
      },
      {
        store: ledger.store,
        consumer: 'ledger',
        sources: [Sns],
        performance: { precheck: 'off' },
        deadLetter: { queueUrl: dlq.url, client: aws.sqs },
        observability: { logger: recordingLogger() },
      },
    );

    const outcome = await processOne(refusing, await deliverAgain(queue, record));

    expect(outcome?.status).toBe(RecordStatus.Duplicate);
    expect(await aws.receive(dlq.url)).toEqual([]);
  });

  it('acknowledges as a duplicate a notification committed before a stricter schema now refuses it', async () => {
    const dlq = await aws.createQueue(aws.uniqueName('sns-stricter-dlq'));
    const { queue } = await paymentPublished('sns-stricter');
    const record = await nextRecord(queue);
    await processOne(ledgerProcessor([Sns]).processor, record);
    const stricter = ledgerProcessor([Sns], {
      schema: PaymentCaptured.extend({ currency: z.string() }),
      deadLetter: { queueUrl: dlq.url, client: aws.sqs },
    });

    const outcome = await processOne(stricter.processor, await deliverAgain(queue, record));

    expect(outcome?.status).toBe(RecordStatus.Duplicate);
    expect(await aws.receive(dlq.url)).toEqual([]);
  });

  it('recognises a notification committed before its consumer declared the source as the same message', async () => {
    const { queue, event } = await paymentPublished('sns-migrate');
    const record = await nextRecord(queue);
    // Before: the schema modelled the envelope and the key dug the event id out of it.
    const before = createBatchProcessor(
      (message, tx) =>
        ledger.applyPayment({ ...message, body: JSON.parse(message.body.Message) }, tx),
      {
        store: ledger.store,
        consumer: 'ledger',
        schema: z.object({ Message: z.string() }),
        key: ({ body }) => JSON.parse(body.Message).eventId,
        observability: { logger: recordingLogger() },
      },
    );
    const after = ledgerProcessor([Sns], {
      key: ({ body }: { body: PaymentCaptured }) => body.eventId,
    });

    expect((await processOne(before, record))?.status).toBe(RecordStatus.Processed);
    const redelivered = await processOne(after.processor, await deliverAgain(queue, record));

    expect(redelivered?.status).toBe(RecordStatus.Duplicate);
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
  });

  it('does not apply a notification twice when it is redriven from the DLQ after its commit', async () => {
    const queues = await queueWithRedrivePolicy(aws, false);
    const topic = await upstreams.topicTo(queues.source.arn);
    const event = payment({ accountId: `acc-sns-redrive-${Date.now()}` });
    await topic.publish({ Message: JSON.stringify(event) });
    const { processor } = ledgerProcessor([Sns]);
    const committed = await processOne(processor, await nextRecord(queues.source));
    expect(committed?.status).toBe(RecordStatus.Processed);

    const dead = await letRedrivePolicyMove(aws.sqs, queues);
    const redriven = await redriveAsSqsDoes(aws.sqs, dead, queues);

    expect((await processOne(processor, redriven))?.status).toBe(RecordStatus.Duplicate);
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
  });

  it('dead-letters a notification on a consumer that declares another source, with its reason', async () => {
    const dlq = await aws.createQueue(aws.uniqueName('sns-wrong-dlq'));
    const { queue, event } = await paymentPublished('sns-wrong');
    const { processor, seen } = ledgerProcessor([EventBridge], {
      deadLetter: { queueUrl: dlq.url, client: aws.sqs },
    });
    const record = await nextRecord(queue);

    const outcome = await processOne(processor, record);

    expect(outcome?.status).toBe(RecordStatus.DeadLettered);
    expect(seen).toEqual([]);
    const [dead] = await aws.receive(dlq.url);
    expect(dead?.Body).toBe(record.body);
    expect(dead?.MessageAttributes?.[DeadLetterAttribute.Error]?.StringValue).toBe(
      'EnvelopeMismatchError',
    );
    expect(dead?.MessageAttributes?.[DeadLetterAttribute.ErrorMessage]?.StringValue).toMatch(
      /the body is an SNS notification, which the declared sources \(eventbridge\) do not deliver/,
    );
    expect(await ledger.balanceOf(event.accountId)).toBe(0);
  });
});

describe('SNS raw delivery in front of the queue', () => {
  it('is refused at creation without a key, naming the fix', () => {
    const create = () =>
      createBatchProcessor(ledger.applyPayment, {
        store: ledger.store,
        consumer: 'ledger',
        schema: PaymentCaptured,
        sources: [SnsRaw],
      });

    expect(create).toThrow(InvalidConfigurationError);
    expect(create).toThrow(/sns-raw carries no upstream id/);
  });

  it('keys by a message attribute the publisher sets: the same event published twice is applied once', async () => {
    const queue = await aws.createQueue(aws.uniqueName('raw'));
    const topic = await upstreams.topicTo(queue.arn, { raw: true });
    const event = payment({ accountId: `acc-raw-${Date.now()}` });
    const attributes = { eventId: { DataType: 'String', StringValue: event.eventId } };
    await topic.publish({ Message: JSON.stringify(event), MessageAttributes: attributes });
    await topic.publish({ Message: JSON.stringify(event), MessageAttributes: attributes });
    const { processor, seen } = ledgerProcessor([SnsRaw], {
      key: ((message: InboxMessage<PaymentCaptured>) =>
        message.messageAttributes.eventId?.stringValue) as never,
    });

    const outcomes = [
      await processOne(processor, await nextRecord(queue)),
      await processOne(processor, await nextRecord(queue)),
    ];

    expect(outcomes.map((outcome) => outcome?.status)).toEqual([
      RecordStatus.Processed,
      RecordStatus.Duplicate,
    ]);
    expect(seen[0]?.envelope).toEqual({ kind: SnsRaw });
    expect(seen[0]?.body).toEqual(event);
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
  });
});

describe('an EventBridge rule in front of the queue', () => {
  it('applies an event delivered twice once, keyed by its id, with detail as the payload', async () => {
    const queue = await aws.createQueue(aws.uniqueName('events'));
    const bus = await upstreams.busTo(queue.arn);
    const event = payment({ accountId: `acc-events-${Date.now()}` });
    await bus.put('PaymentCaptured', event);
    const { processor, seen } = ledgerProcessor([EventBridge]);

    const { record, statuses } = await processDeliveredTwice(queue, processor);

    expect(statuses).toEqual([RecordStatus.Processed, RecordStatus.Duplicate]);
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
    const id = JSON.parse(record.body).id;
    expect(seen[0]?.key).toBe(`eventbridge:${id}`);
    expect(seen[0]?.body).toEqual(event);
    expect(seen[0]?.envelope).toMatchObject({
      kind: EventBridge,
      id,
      source: 'shop.orders',
      detailType: 'PaymentCaptured',
      time: expect.any(String),
    });
  });
});

describe('S3 notifications in front of the queue', () => {
  /** Counts each object event in the stock table, under the object's key. */
  function uploadCounter() {
    const handled: string[] = [];
    const processor = createBatchProcessor(
      (message, tx) => {
        if (message.envelope.kind !== S3) throw new Error('not an S3 message');
        for (const object of message.envelope.objects) {
          handled.push(object.key);
          tx.update({
            TableName: ledger.tables.stock,
            Key: { sku: `${object.bucket}/${object.key}` },
            UpdateExpression: 'ADD uploads :one',
            ExpressionAttributeValues: { ':one': 1 },
          });
        }
      },
      {
        store: ledger.store,
        consumer: 'uploads',
        sources: [S3],
        observability: { logger: recordingLogger() },
      },
    );
    return { processor, handled };
  }

  it('acknowledges the test event without running the handler or writing an entry, then applies an object event delivered twice once', async () => {
    const queue = await aws.createQueue(aws.uniqueName('s3'));
    const bucket = await upstreams.bucketTo(queue.arn);
    const { processor, handled } = uploadCounter();

    const test = await nextRecord(queue);
    const acknowledged = await processor.processRecords(sqsEvent(test));
    await bucket.put('in/a b.csv', 'x');
    const record = await nextRecord(queue);
    const first = await processOne(processor, record);
    const retried = await processOne(processor, await deliverAgain(queue, record));

    expect(acknowledged).toEqual([{ messageId: test.messageId, status: RecordStatus.Ignored }]);
    expect(JSON.parse(test.body).Event).toBe('s3:TestEvent');
    expect([first?.status, retried?.status]).toEqual([
      RecordStatus.Processed,
      RecordStatus.Duplicate,
    ]);
    // The copy, alone in its batch, ran its handler before its commit found it: no effect.
    expect(new Set(handled)).toEqual(new Set(['in/a b.csv']));
    const { Item } = await aws.documentClient.send(
      new GetCommand({
        TableName: ledger.tables.stock,
        Key: { sku: `${bucket.bucket}/in/a b.csv` },
      }),
    );
    expect(Item?.uploads).toBe(1);
    expect(first?.key).toMatch(
      new RegExp(`^s3:ObjectCreated:Put:${bucket.bucket}/in/a\\+b\\.csv@`),
    );
    expect(
      await ledger.store.find(inboxPk('uploads', `s3-test-${test.messageId}`)),
    ).toBeUndefined();
  });
});

describe('a FIFO topic in front of a FIFO queue', () => {
  it("keeps each group's publish order and carries the publish's deduplication id", async () => {
    const queue = await aws.createQueue(`${aws.uniqueName('sns-fifo')}.fifo`);
    const topic = await upstreams.topicTo(queue.arn, { fifo: true });
    const published: Array<{ group: string; event: PaymentCaptured }> = [];
    for (const [index, group] of ['a', 'b', 'a', 'a', 'b', 'a', 'b'].entries()) {
      const event = payment({
        accountId: `acc-fifo-${group}-${Date.now()}`,
        amountCents: index + 1,
      });
      published.push({ group, event });
      await topic.publish({
        Message: JSON.stringify(event),
        MessageGroupId: group,
        MessageDeduplicationId: event.eventId,
      });
    }
    const { processor, seen } = ledgerProcessor([Sns], { performance: { concurrency: 2 } });
    // One receive, as Lambda's poller does: a FIFO queue hands out a group's next message only
    // once the one before is deleted, or together with it.
    const records = (await aws.receive(queue.url)).map((message) => toRecord(message, queue.arn));
    expect(records).toHaveLength(published.length);

    const outcomes = await processor.processRecords(sqsEvent(...records));

    expect(outcomes.every((outcome) => outcome.status === RecordStatus.Processed)).toBe(true);
    for (const group of ['a', 'b']) {
      const order = (list: Array<{ eventId: string }>) => list.map((event) => event.eventId);
      const handledInGroup = seen.filter((message) => message.attributes.MessageGroupId === group);
      expect(order(handledInGroup.map((message) => message.body))).toEqual(
        order(published.filter((entry) => entry.group === group).map((entry) => entry.event)),
      );
      for (const message of handledInGroup) {
        expect(message.attributes.MessageDeduplicationId).toBe(message.body.eventId);
      }
    }
  });
});
