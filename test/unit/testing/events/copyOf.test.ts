import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { MessageSource, RecordStatus } from '../../../../src/index.js';
import {
  copyOf,
  eventBridgeRecord,
  fifoRecord,
  outboxRecord,
  s3Record,
  snsRecord,
  sqsEvent,
  sqsRecord,
} from '../../../../src/testing/index.js';
import { recordingConsumer } from '../../../support/recordingConsumer.js';

const byOrderId = ({ body }: { body: unknown }) => String((body as { orderId: string }).orderId);

const SOURCES: Array<[string, MessageSource, () => SQSRecord]> = [
  ['a producer’s message', MessageSource.Sqs, () => sqsRecord({ orderId: 'o-1' })],
  ['an SNS notification', MessageSource.Sns, () => snsRecord({ orderId: 'o-1' })],
  [
    'an EventBridge event',
    MessageSource.EventBridge,
    () => eventBridgeRecord({ orderId: 'o-1' }, { source: 'shop', detailType: 'Placed' }),
  ],
  ['an S3 notification', MessageSource.S3, () => s3Record({ bucket: 'b', key: 'k' })],
  ['a relayed message', MessageSource.Outbox, () => outboxRecord({ orderId: 'o-1' })],
];

describe('copyOf', () => {
  it.each(SOURCES)(
    'of %s is a duplicate: a new message, keyed as the first',
    async (_, source, make) => {
      const { processor, seen } = recordingConsumer({
        sources: [source],
        ...(source === MessageSource.Sqs ? { key: byOrderId } : {}),
      });
      const record = make();
      const copy = copyOf(record);
      const [first] = await processor.processRecords(sqsEvent(record));
      const [again] = await processor.processRecords(sqsEvent(copy));
      expect(first?.status).toBe(RecordStatus.Processed);
      expect(again).toEqual({
        messageId: copy.messageId,
        status: RecordStatus.Duplicate,
        key: first?.key,
      });
      expect(seen).toHaveLength(1);
      expect(copy.messageId).not.toBe(record.messageId);
      expect(copy.receiptHandle).not.toBe(record.receiptHandle);
      expect(copy.body).toBe(record.body);
    },
  );

  it('is a first receive at the time given; on a FIFO queue a later message of the group', () => {
    const record = fifoRecord(
      { orderId: 'o-1' },
      { groupId: 'g', receiveCount: 3, sentAtMillis: 1 },
    );
    const copy = copyOf(record, { messageId: 'copy-1', sentAtMillis: 5_000 });
    expect(copy.messageId).toBe('copy-1');
    expect(copy.attributes).toMatchObject({
      ApproximateReceiveCount: '1',
      SentTimestamp: '5000',
      ApproximateFirstReceiveTimestamp: '5000',
      MessageGroupId: 'g',
      MessageDeduplicationId: record.attributes.MessageDeduplicationId,
    });
    expect(BigInt(String(copy.attributes.SequenceNumber))).toBeGreaterThan(
      BigInt(String(record.attributes.SequenceNumber)),
    );
  });
});
