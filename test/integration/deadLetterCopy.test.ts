import { randomUUID } from 'node:crypto';
import { type MessageAttributeValue, SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import {
  DeadLetterAttribute,
  InboxEnvironment,
  inboxPk,
  keyHash,
} from '../../src/constants/index.js';
import {
  createBatchProcessor,
  inboxConfigFromEnvironment,
  type MessageHandler,
  MessageSource,
  PermanentError,
  RecordStatus,
} from '../../src/index.js';
import { toRecord } from '../../tools/local/LocalEventSourceMapping.js';
import { useLedger } from '../support/ledgerFixture.js';
import { receiveOne, redriveAsSqsDoes } from '../support/redrive.js';
import { recordingLogger, sqsEvent } from '../support/sqsRecords.js';

const { aws, ledger } = useLedger();
const CONSUMER = 'shipments';

/** Attributes whose names sort before `eventId`, which the declared key reads. */
const sortingBefore = (count: number) =>
  Object.fromEntries(
    ['aRegion', 'bTenant', 'cTrace', 'dSchema', 'eOrigin']
      .slice(0, count)
      .map((name) => [
        name,
        { DataType: 'String', StringValue: `${name}-value` } satisfies MessageAttributeValue,
      ]),
  );

async function queues() {
  const source = await aws.createQueue(aws.uniqueName('copy-source'));
  const dlq = await aws.createQueue(aws.uniqueName('copy-dlq'));
  return { source, dlq };
}

/**
 * A raw-delivery consumer keyed by a message attribute, configured the way the construct does
 * (`INBOX_SOURCES=sns-raw`, `INBOX_KEY=attribute:eventId`), dead-lettering to `dlqUrl`.
 */
function attributeKeyedConsumer(dlqUrl: string, handler: MessageHandler<unknown>) {
  const { options } = inboxConfigFromEnvironment({
    env: {
      [InboxEnvironment.TableName]: ledger.tables.inbox,
      [InboxEnvironment.Consumer]: CONSUMER,
      [InboxEnvironment.TtlSeconds]: String(23 * 86_400),
      [InboxEnvironment.MaxReceiveCount]: '5',
      [InboxEnvironment.DeadLetterQueueUrl]: dlqUrl,
      [InboxEnvironment.Sources]: MessageSource.SnsRaw,
      [InboxEnvironment.Key]: 'attribute:eventId',
    },
    dynamoDBClient: aws.dynamodb,
    sqsClient: aws.sqs,
  });
  return createBatchProcessor(handler, {
    ...options,
    observability: { logger: recordingLogger() },
  });
}

describe('a dead letter stays redrivable: the attributes its key and source need come first', () => {
  it.each([4, 5])(
    'keeps the attribute a declared key reads beside %i that sort before it and the inbox annotations, so the redriven copy is keyed again and applied',
    async (others) => {
      const { source, dlq } = await queues();
      const eventId = `evt-${randomUUID()}`;
      await aws.sqs.send(
        new SendMessageCommand({
          QueueUrl: source.url,
          MessageBody: JSON.stringify({ parcel: 'p-1', weightGrams: 1200 }),
          MessageAttributes: {
            ...sortingBefore(others),
            eventId: { DataType: 'String', StringValue: eventId },
          },
        }),
      );
      const received = await receiveOne(aws.sqs, source.url);
      if (!received) throw new Error('the message did not arrive');
      let broken = true;
      const applied: string[] = [];
      const handler: MessageHandler<unknown> = ({ key }) => {
        if (broken) throw new PermanentError('the carrier is not configured');
        applied.push(key);
      };
      const consumer = attributeKeyedConsumer(dlq.url, handler);

      const [failed] = await consumer.processRecords(sqsEvent(toRecord(received, source.arn)));
      expect(failed?.status).toBe(RecordStatus.DeadLettered);

      const dead = await receiveOne(aws.sqs, dlq.url);
      if (!dead) throw new Error('no dead letter');
      const names = Object.keys(dead.MessageAttributes ?? {});
      expect(names).toHaveLength(10);
      expect(dead.MessageAttributes?.eventId?.StringValue).toBe(eventId);
      expect(dead.MessageAttributes?.[DeadLetterAttribute.Error]?.StringValue).toBe(
        'PermanentError',
      );
      expect(dead.MessageAttributes?.[DeadLetterAttribute.KeyHash]?.StringValue).toBe(
        keyHash(eventId),
      );
      expect(names).toEqual(
        expect.arrayContaining([
          DeadLetterAttribute.Consumer,
          DeadLetterAttribute.OriginalMessageId,
          DeadLetterAttribute.SourceQueueArn,
        ]),
      );

      broken = false;
      const redriven = await redriveAsSqsDoes(aws.sqs, dead, { source, dlq });
      const [again] = await consumer.processRecords(sqsEvent(redriven));

      expect(again?.status).toBe(RecordStatus.Processed);
      expect(applied).toEqual([eventId]);
      expect(await ledger.store.find(inboxPk(CONSUMER, eventId))).toMatchObject({
        status: 'COMPLETED',
      });
    },
  );

  it('carries the key itself, whatever logKeys says, when the key read more attributes than a copy can keep beside its reason', async () => {
    const { source, dlq } = await queues();
    const attributes = Object.fromEntries(
      Array.from({ length: 10 }, (_, n) => [
        `part${n}`,
        { DataType: 'String', StringValue: `v${n}-${randomUUID().slice(0, 8)}` },
      ]),
    );
    await aws.sqs.send(
      new SendMessageCommand({
        QueueUrl: source.url,
        MessageBody: '{"parcel":"p-2"}',
        MessageAttributes: attributes,
      }),
    );
    const received = await receiveOne(aws.sqs, source.url);
    if (!received) throw new Error('the message did not arrive');
    // A key function that lists every attribute: all ten are what the key was read from.
    const key = ({ messageAttributes }: { messageAttributes: Record<string, unknown> }) =>
      Object.values(messageAttributes)
        .map((value) => (value as { stringValue?: string }).stringValue)
        .join('|');
    const processor = createBatchProcessor(
      () => {
        throw new PermanentError('refused');
      },
      {
        store: ledger.store,
        consumer: CONSUMER,
        key,
        deadLetter: { queueUrl: dlq.url, client: aws.sqs },
        observability: { logger: recordingLogger() },
      },
    );

    const [failed] = await processor.processRecords(sqsEvent(toRecord(received, source.arn)));
    expect(failed?.status).toBe(RecordStatus.DeadLettered);

    const dead = await receiveOne(aws.sqs, dlq.url);
    const copied = dead?.MessageAttributes ?? {};
    expect(Object.keys(copied)).toHaveLength(10);
    expect(copied[DeadLetterAttribute.Error]?.StringValue).toBe('PermanentError');
    expect(copied[DeadLetterAttribute.Key]?.StringValue).toBe(failed?.key);
    expect(Object.keys(copied).filter((name) => name.startsWith('part'))).toHaveLength(8);
  });
});
