import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';

/** The clients of a local run: DynamoDB (or DynamoDB Local), SQS, SNS, EventBridge, S3 and SES. */
export interface LocalClients {
  readonly dynamodb: DynamoDBClient;
  readonly sqs: SQSClient;
  readonly sns: SNSClient;
  readonly events: EventBridgeClient;
  readonly s3: S3Client;
  readonly ses: SESv2Client;
}

/**
 * Clients for the emulator's endpoints (SNS, EventBridge, S3 and SES on the SQS one; S3
 * path-style), with the emulator's region and dummy credentials.
 *
 * @example
 * ```ts
 * const clients = localClients({ dynamodb: emulator.endpoint, sqs: emulator.endpoint });
 * ```
 */
export function localClients(endpoints: { dynamodb: string; sqs: string }): LocalClients {
  const config = {
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  };
  return {
    dynamodb: new DynamoDBClient({ ...config, endpoint: endpoints.dynamodb }),
    sqs: new SQSClient({ ...config, endpoint: endpoints.sqs }),
    sns: new SNSClient({ ...config, endpoint: endpoints.sqs }),
    events: new EventBridgeClient({ ...config, endpoint: endpoints.sqs }),
    s3: new S3Client({ ...config, endpoint: endpoints.sqs, forcePathStyle: true }),
    ses: new SESv2Client({ ...config, endpoint: endpoints.sqs }),
  };
}
