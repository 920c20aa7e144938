import {
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SqsVisibilityChanger } from '../../src/aws/SqsVisibilityChanger.js';
import { toRecord } from '../../tools/local/LocalEventSourceMapping.js';
import { testAws } from '../harness/aws.js';

const aws = testAws();

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the visibility changer’s own SQS client', () => {
  it('sends to the endpoint AWS_ENDPOINT_URL_SQS names, not the AWS host of the queue URL it derives from the ARN', async () => {
    const queue = await aws.createQueue(aws.uniqueName('visibility-endpoint'), {
      VisibilityTimeout: '30',
    });
    await aws.sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: '{}' }));
    const { Messages = [] } = await aws.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queue.url, WaitTimeSeconds: 1 }),
    );
    const [message] = Messages;
    expect(message).toBeDefined();
    vi.stubEnv('AWS_ENDPOINT_URL_SQS', aws.endpoints.sqs);
    vi.stubEnv('AWS_REGION', 'us-east-1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');

    const { changed, failedByCode } = await new SqsVisibilityChanger().change(
      [{ record: toRecord(message ?? {}, queue.arn), visibilityTimeoutSeconds: 0 }],
      new AbortController().signal,
    );

    expect(failedByCode).toEqual({});
    expect(changed.size).toBe(1);
    const { Attributes } = await aws.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: queue.url,
        AttributeNames: ['ApproximateNumberOfMessages'],
      }),
    );
    expect(Attributes?.ApproximateNumberOfMessages).toBe('1');
  });
});
