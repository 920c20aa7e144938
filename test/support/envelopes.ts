import { randomUUID } from 'node:crypto';

/** An SNS notification as SNS writes it to a subscribed queue (raw delivery off). */
export function snsNotification(
  message: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    Type: 'Notification',
    MessageId: randomUUID(),
    TopicArn: 'arn:aws:sns:us-east-1:000000000000:payments',
    Message: message,
    Timestamp: '2026-11-23T10:00:00.000Z',
    SignatureVersion: '1',
    Signature: 'c2lnbmF0dXJl',
    SigningCertURL: 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0.pem',
    UnsubscribeURL: 'https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe',
    ...overrides,
  };
}

/** An EventBridge event as a rule delivers it to an SQS target. */
export function eventBridgeEvent(
  detail: unknown,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'OrderPlaced',
    source: 'shop.orders',
    account: '000000000000',
    time: '2026-11-23T10:00:00Z',
    region: 'us-east-1',
    resources: [],
    detail,
    ...overrides,
  };
}

/** An S3 event notification of one object event. */
export function s3Notification(object: {
  bucket?: string;
  key: string;
  sequencer?: string;
  eventName?: string;
}): Record<string, unknown> {
  return {
    Records: [
      {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        awsRegion: 'us-east-1',
        eventTime: '2026-11-23T10:00:00.000Z',
        eventName: object.eventName ?? 'ObjectCreated:Put',
        s3: {
          s3SchemaVersion: '1.0',
          bucket: {
            name: object.bucket ?? 'uploads',
            arn: `arn:aws:s3:::${object.bucket ?? 'uploads'}`,
          },
          object: {
            key: object.key,
            size: 5,
            eTag: '5d41402abc4b2a76b9719d911017c592',
            ...(object.sequencer === undefined ? {} : { sequencer: object.sequencer }),
          },
        },
      },
    ],
  };
}

/** The message S3 sends when a notification is configured. */
export function s3TestEvent(): Record<string, unknown> {
  return {
    Service: 'Amazon S3',
    Event: 's3:TestEvent',
    Time: '2026-11-23T10:00:00.000Z',
    Bucket: 'uploads',
    RequestId: 'R1',
    HostId: 'H1',
  };
}
