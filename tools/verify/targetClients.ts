import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { LocalClients } from '../local/localClients.js';
import { clientConfigOf, type VerifyTarget } from './VerifyTarget.js';

/** The clients of a verify run: a local run's, and Lambda, CloudFormation and CloudWatch Logs. */
export interface TargetClients extends LocalClients {
  readonly lambda: LambdaClient;
  readonly cloudFormation: CloudFormationClient;
  readonly logs: CloudWatchLogsClient;
}

/**
 * Clients for `target`: the emulator's endpoint and dummy credentials (S3 path-style), or the
 * caller's profile and region.
 *
 * @example
 * ```ts
 * const clients = targetClients({ kind: 'aws', region: 'eu-west-1', profile: 'dev' });
 * ```
 */
export function targetClients(target: VerifyTarget): TargetClients {
  const config = clientConfigOf(target);
  return {
    dynamodb: new DynamoDBClient(config),
    sqs: new SQSClient(config),
    sns: new SNSClient(config),
    events: new EventBridgeClient(config),
    s3: new S3Client({ ...config, forcePathStyle: target.kind === 'emulator' }),
    ses: new SESv2Client(config),
    lambda: new LambdaClient(config),
    cloudFormation: new CloudFormationClient(config),
    logs: new CloudWatchLogsClient(config),
  };
}

/**
 * The standard AWS variables that give a child command (`sqs-inbox`) this target: the emulator's
 * endpoint and credentials, or the credentials the profile resolved to (the child reads no
 * shared config) and the region.
 *
 * @example
 * ```ts
 * spawnSqsInbox(['dlq', 'report', '--function', fn], await childEnvironmentOf(target, clients));
 * ```
 */
export async function childEnvironmentOf(
  target: VerifyTarget,
  clients: TargetClients,
): Promise<NodeJS.ProcessEnv> {
  const { accessKeyId, secretAccessKey, sessionToken } = await clients.sqs.config.credentials();
  return {
    AWS_ACCESS_KEY_ID: accessKeyId,
    AWS_SECRET_ACCESS_KEY: secretAccessKey,
    ...(sessionToken ? { AWS_SESSION_TOKEN: sessionToken } : {}),
    AWS_REGION: await clients.sqs.config.region(),
    ...(target.kind === 'emulator' ? { AWS_ENDPOINT_URL: target.endpoint } : {}),
  };
}
