import { describe, expect, it } from 'vitest';
import { MessageSource, RecordStatus } from '../../../../src/index.js';
import { snsRecord, sqsEvent } from '../../../../src/testing/index.js';
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
});
