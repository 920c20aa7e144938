import { randomUUID } from 'node:crypto';
import {
  CreateEventBusCommand,
  DeleteEventBusCommand,
  EventBridgeClient,
  PutEventsCommand,
  PutRuleCommand,
  PutTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import {
  CreateBucketCommand,
  PutBucketNotificationConfigurationCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import {
  CreateTopicCommand,
  DeleteTopicCommand,
  PublishCommand,
  type PublishCommandInput,
  SNSClient,
  SubscribeCommand,
} from '@aws-sdk/client-sns';
import { afterAll } from 'vitest';
import type { TestAws } from '../harness/aws.js';

const region = 'us-east-1';
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

/**
 * The upstreams of a queue on the emulator — SNS topics, EventBridge buses and rules, S3
 * bucket notifications — wired to queues the way the construct wires them, so that messages
 * arrive as AWS delivers them. Topics and buses are deleted after the file.
 */
export function useUpstreams(aws: TestAws) {
  const endpoint = aws.endpoints.sqs;
  const sns = new SNSClient({ endpoint, region, credentials });
  const events = new EventBridgeClient({ endpoint, region, credentials });
  const s3 = new S3Client({ endpoint, region, credentials, forcePathStyle: true });
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    await Promise.allSettled(cleanups.splice(0).map((cleanup) => cleanup()));
    for (const client of [sns, events, s3]) client.destroy();
  });

  return {
    /** A topic (FIFO when `fifo`) with the queue subscribed, raw delivery on or off. */
    async topicTo(queueArn: string, options: { raw?: boolean; fifo?: boolean } = {}) {
      const name = `${aws.uniqueName('topic')}${options.fifo ? '.fifo' : ''}`;
      const { TopicArn = '' } = await sns.send(
        new CreateTopicCommand({
          Name: name,
          Attributes: options.fifo ? { FifoTopic: 'true' } : {},
        }),
      );
      cleanups.push(() => sns.send(new DeleteTopicCommand({ TopicArn })));
      await sns.send(
        new SubscribeCommand({
          TopicArn,
          Protocol: 'sqs',
          Endpoint: queueArn,
          Attributes: options.raw ? { RawMessageDelivery: 'true' } : {},
        }),
      );
      return {
        topicArn: TopicArn,
        publish: (input: Omit<PublishCommandInput, 'TopicArn'>) =>
          sns.send(new PublishCommand({ ...input, TopicArn })),
      };
    },
    /** A bus with a rule for `source` whose target is the queue; `put` sends one event. */
    async busTo(queueArn: string, source = 'shop.orders') {
      const bus = aws.uniqueName('bus');
      const { EventBusArn = '' } = await events.send(new CreateEventBusCommand({ Name: bus }));
      cleanups.push(() => events.send(new DeleteEventBusCommand({ Name: bus })));
      const rule = aws.uniqueName('rule');
      await events.send(
        new PutRuleCommand({
          Name: rule,
          EventBusName: bus,
          EventPattern: JSON.stringify({ source: [source] }),
        }),
      );
      await events.send(
        new PutTargetsCommand({
          Rule: rule,
          EventBusName: bus,
          Targets: [{ Id: 'queue', Arn: queueArn }],
        }),
      );
      return {
        busArn: EventBusArn,
        put: (detailType: string, detail: unknown) =>
          events.send(
            new PutEventsCommand({
              Entries: [
                {
                  EventBusName: bus,
                  Source: source,
                  DetailType: detailType,
                  Detail: JSON.stringify(detail),
                },
              ],
            }),
          ),
      };
    },
    /** A bucket whose object-created notifications go to the queue; S3 sends its test event first. */
    async bucketTo(queueArn: string) {
      const bucket = `bucket-${randomUUID().slice(0, 8)}`;
      await s3.send(new CreateBucketCommand({ Bucket: bucket }));
      await s3.send(
        new PutBucketNotificationConfigurationCommand({
          Bucket: bucket,
          NotificationConfiguration: {
            QueueConfigurations: [{ QueueArn: queueArn, Events: ['s3:ObjectCreated:*'] }],
          },
        }),
      );
      return {
        bucket,
        put: (key: string, body: string) =>
          s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body })),
      };
    },
  };
}
