import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createBatchProcessor,
  type InboxMessage,
  MessageSource,
  RecordStatus,
} from '../../../../src/index.js';
import { InboxTest, snsRecord, sqsEvent } from '../../../../src/testing/index.js';
import { recordingConsumer } from '../../../support/recordingConsumer.js';

const TOPIC_ARN = 'arn:aws:sns:eu-west-1:111122223333:payments';

describe('snsRecord', () => {
  it('wraps the message in SNS’s notification, which the sns source unwraps and keys by its MessageId', async () => {
    const { processor, seen } = recordingConsumer({ sources: [MessageSource.Sns] });
    const record = snsRecord(
      { orderId: 'o-1' },
      {
        snsMessageId: 'sns-1',
        topicArn: TOPIC_ARN,
        subject: 'OrderPlaced',
        messageAttributes: { eventId: 'e-1' },
        sentAtMillis: Date.UTC(2026, 10, 23, 10),
      },
    );
    const [outcome] = await processor.processRecords(sqsEvent(record));
    expect(outcome).toMatchObject({ status: RecordStatus.Processed, key: 'sns:sns-1' });
    expect(seen[0]?.body).toEqual({ orderId: 'o-1' });
    expect(seen[0]?.envelope).toEqual({
      kind: MessageSource.Sns,
      messageId: 'sns-1',
      topicArn: TOPIC_ARN,
      timestamp: '2026-11-23T10:00:00.000Z',
      subject: 'OrderPlaced',
      sequenceNumber: undefined,
      messageAttributes: { eventId: { type: 'String', value: 'e-1' } },
    });
    expect(seen[0]?.messageAttributes).toEqual({});
  });

  it('leaves Subject and MessageAttributes out of the notification when the publish had none', () => {
    const notification = JSON.parse(snsRecord('plain text').body);
    expect(notification).toMatchObject({ Type: 'Notification', Message: 'plain text' });
    expect(notification).not.toHaveProperty('Subject');
    expect(notification).not.toHaveProperty('MessageAttributes');
  });

  it('delivers raw: the message is the body and its attributes are SQS’s, which a key reads', async () => {
    const { processor, seen } = recordingConsumer({
      sources: [MessageSource.SnsRaw],
      key: ({ messageAttributes }) => String(messageAttributes.eventId?.stringValue),
    });
    const record = snsRecord(
      { orderId: 'o-1' },
      { raw: true, messageAttributes: { eventId: 'e-1' } },
    );
    const [outcome] = await processor.processRecords(sqsEvent(record));
    expect(outcome).toMatchObject({ status: RecordStatus.Processed, key: 'e-1' });
    expect(seen[0]).toMatchObject({
      body: { orderId: 'o-1' },
      envelope: { kind: MessageSource.SnsRaw },
      messageAttributes: { eventId: { dataType: 'String', stringValue: 'e-1' } },
    });
  });

  it('is an SNS notification to the library: a consumer that declares raw delivery only refuses it', async () => {
    const { processor, seen } = recordingConsumer({
      sources: [MessageSource.SnsRaw],
      key: ({ body }) => String((body as { orderId: string }).orderId),
    });
    const [outcome] = await processor.processRecords(sqsEvent(snsRecord({ orderId: 'o-1' })));
    expect(outcome?.status).toBe(RecordStatus.Failed);
    expect(outcome?.error).toMatchObject({ name: 'EnvelopeMismatchError' });
    expect(seen).toEqual([]);
  });

  it('delivers a FIFO topic’s publish to a FIFO queue: keyed by SNS’s MessageId, its SequenceNumber in the envelope, a group run in order', async () => {
    const inbox = new InboxTest();
    const seen: Array<InboxMessage<unknown>> = [];
    const processor = createBatchProcessor(
      async (message) => {
        if ((message.body as { fail?: boolean }).fail) throw new Error('the downstream is down');
        seen.push(message);
      },
      { ...inbox.options, sources: [MessageSource.Sns] },
    );
    const fifo = { groupId: 'customer-1' };
    const first = snsRecord({ orderId: 'o-1' }, { ...fifo, snsMessageId: 'sns-1' });
    const records = [first, snsRecord({ fail: true }, fifo), snsRecord({ orderId: 'o-3' }, fifo)];
    const run = await inbox.run(processor, records);
    expect(run.records.map((record) => record.status)).toEqual(['processed', 'failed', 'skipped']);
    expect(run.records[0]?.key).toBe('sns:sns-1');
    const notification = JSON.parse(first.body);
    expect(seen[0]?.envelope).toMatchObject({
      kind: MessageSource.Sns,
      topicArn: 'arn:aws:sns:us-east-1:123456789012:orders.fifo',
      sequenceNumber: notification.SequenceNumber,
    });
    expect(notification.SequenceNumber).toMatch(/^\d{20}$/);
    expect(notification).not.toHaveProperty('Signature');
    expect(first.attributes).toMatchObject({
      MessageGroupId: 'customer-1',
      MessageDeduplicationId: createHash('sha256').update('{"orderId":"o-1"}').digest('hex'),
    });
    expect(first.eventSourceARN).toMatch(/\.fifo$/);
  });

  it('delivers a FIFO topic’s publish raw, with the publish’s deduplication id', () => {
    const record = snsRecord('text', { raw: true, groupId: 'g', deduplicationId: 'pub-1' });
    expect(record.body).toBe('text');
    expect(record.attributes).toMatchObject({
      MessageGroupId: 'g',
      MessageDeduplicationId: 'pub-1',
    });
  });

  it('refuses a group on a standard topic, and a deduplication id without a group', () => {
    expect(() => snsRecord('m', { groupId: 'g', topicArn: TOPIC_ARN })).toThrow(/topicArn.*FIFO/);
    expect(() => snsRecord('m', { topicArn: `${TOPIC_ARN}.fifo` })).toThrow(/topicArn.*groupId/);
    expect(() => snsRecord('m', { deduplicationId: 'd' })).toThrow(/deduplicationId.*groupId/);
  });
});
