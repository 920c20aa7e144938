import { describe, expect, it } from 'vitest';
import { InvalidConfigurationError } from '../../../../src/errors.js';
import { RecordStatus } from '../../../../src/index.js';
import { fifoRecord, sqsEvent, sqsRecord } from '../../../../src/testing/index.js';
import { recordingConsumer } from '../../../support/recordingConsumer.js';

const TRACE_HEADER = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';

describe('sqsRecord', () => {
  it('delivers a producer’s body and attributes in Lambda’s shape to the handler, keyed by them', async () => {
    const { processor, seen } = recordingConsumer({
      key: ({ messageAttributes }) => String(messageAttributes.eventId?.stringValue),
    });
    const record = sqsRecord(
      { paymentId: 'pay-1' },
      {
        messageAttributes: { eventId: 'e-1', amount: { dataType: 'Number', stringValue: '3' } },
        traceHeader: TRACE_HEADER,
        receiveCount: 2,
        sentAtMillis: 1_700_000_000_000,
      },
    );
    const outcomes = await processor.processRecords(sqsEvent(record));
    expect(outcomes).toEqual([
      { messageId: record.messageId, status: RecordStatus.Processed, key: 'e-1' },
    ]);
    expect(seen[0]).toMatchObject({
      body: { paymentId: 'pay-1' },
      messageAttributes: {
        eventId: { dataType: 'String', stringValue: 'e-1', stringListValues: [] },
        amount: { dataType: 'Number', stringValue: '3', binaryListValues: [] },
      },
      attributes: {
        ApproximateReceiveCount: '2',
        SentTimestamp: '1700000000000',
        ApproximateFirstReceiveTimestamp: '1700000000000',
        AWSTraceHeader: TRACE_HEADER,
      },
    });
    expect(record).toMatchObject({
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:orders',
      awsRegion: 'us-east-1',
    });
  });

  it('sends a string body as it is, with SQS’s MD5 digests of the body and the attributes', () => {
    const record = sqsRecord('hello', {
      messageAttributes: {
        eventId: 'e-1',
        amount: { dataType: 'Number', stringValue: '1250' },
        blob: { dataType: 'Binary', binaryValue: 'AAH+/w==' },
      },
    });
    expect(record.body).toBe('hello');
    expect(record.md5OfBody).toBe('5d41402abc4b2a76b9719d911017c592');
    // The digests MiniStack's SQS computes for these attributes (its `_md5_msg_attrs`).
    expect(record.md5OfMessageAttributes).toBe('7b8db9f620a7924674ebe30a2e81d0a1');
    const utf8 = sqsRecord('x', { messageAttributes: { tenant: 'acme ü' } });
    expect(utf8.md5OfMessageAttributes).toBe('8b827a31800b493e032b9a1cad81c450');
    expect(sqsRecord('x')).not.toHaveProperty('md5OfMessageAttributes');
  });

  it('takes the region of the queue ARN, and refuses a FIFO queue’s ARN or no queue ARN', () => {
    const arn = 'arn:aws:sqs:eu-west-1:111122223333:credits';
    expect(sqsRecord('x', { queueArn: arn })).toMatchObject({
      eventSourceARN: arn,
      awsRegion: 'eu-west-1',
    });
    expect(() => sqsRecord('x', { queueArn: `${arn}.fifo` })).toThrow(InvalidConfigurationError);
    expect(() => sqsRecord('x', { queueArn: 'credits' })).toThrow(InvalidConfigurationError);
  });
});

describe('fifoRecord', () => {
  it('comes from a FIFO queue with its group, content-based deduplication id and a growing sequence number', () => {
    const first = fifoRecord('a', { groupId: 'account-1' });
    const second = fifoRecord('a', { groupId: 'account-1', deduplicationId: 'pay-2' });
    expect(first.eventSourceARN).toBe('arn:aws:sqs:us-east-1:123456789012:orders.fifo');
    expect(first.attributes).toMatchObject({
      MessageGroupId: 'account-1',
      // SHA-256 of 'a', as SQS's content-based deduplication computes it.
      MessageDeduplicationId: 'ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb',
    });
    expect(second.attributes.MessageDeduplicationId).toBe('pay-2');
    expect(BigInt(String(second.attributes.SequenceNumber))).toBeGreaterThan(
      BigInt(String(first.attributes.SequenceNumber)),
    );
    expect(() =>
      fifoRecord('a', { groupId: 'g', queueArn: first.eventSourceARN.slice(0, -5) }),
    ).toThrow(InvalidConfigurationError);
    expect(() => fifoRecord('a', { groupId: '' })).toThrow(InvalidConfigurationError);
  });

  it('keeps a group’s order: its records run one after the other, and a failure holds the rest', async () => {
    const { processor, seen } = recordingConsumer(
      { key: ({ body }) => (body as { n: string }).n },
      async ({ key: body }) => {
        // The first record waits, so a record of its group that ran beside it would show.
        if (body === 'a1') await new Promise((resolve) => setTimeout(resolve, 20));
        if (body === 'a2') throw new Error('a2 fails');
      },
    );
    const records = ['a1', 'a2', 'a3'].map((n) => fifoRecord({ n }, { groupId: 'a' }));
    const other = fifoRecord({ n: 'b1' }, { groupId: 'b' });
    const outcomes = await processor.processRecords(sqsEvent(...records, other));
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      RecordStatus.Processed,
      RecordStatus.Failed,
      RecordStatus.Skipped,
      RecordStatus.Processed,
    ]);
    expect(seen.map(({ key }) => key).filter((key) => key.startsWith('a'))).toEqual(['a1', 'a2']);
  });
});
