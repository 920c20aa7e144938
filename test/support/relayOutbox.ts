import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SNSClient } from '@aws-sdk/client-sns';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { AwsOutboxSender } from '../../src/aws/AwsOutboxSender.js';
import { createOutboxRelay, type OutboxRelayProcessor } from '../../src/relay/createOutboxRelay.js';
import { LocalStreamMapping } from '../../tools/local/LocalStreamMapping.js';
import type { StreamRetryPolicy } from '../../tools/local/settleStreamBatch.js';
import type { TestAws } from '../harness/aws.js';
import { recordingLogger } from './sqsRecords.js';

const region = 'us-east-1';
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

type RelayHandler = (
  event: { Records: DynamoDBRecord[] },
  context: Context,
) => Promise<DynamoDBBatchResponse | undefined>;

/**
 * The outbox relay of the library on the emulator: the relay function's code, fed by the local
 * stream mapping from the outbox table's stream (on the DynamoDB backend of the project), sending
 * through the emulator's SQS, SNS and EventBridge. `wrap` puts a crash around the relay;
 * `eventBridgeClient` is a client of the caller's on the emulator (to watch what it sends).
 */
export async function startRelay(
  aws: TestAws,
  tableName: string,
  deadLetterQueueUrl: string,
  options: {
    wrap?: (relay: OutboxRelayProcessor) => RelayHandler;
    policy?: Partial<StreamRetryPolicy>;
    batchSize?: number;
    eventBridgeClient?: EventBridgeClient;
  } = {},
) {
  const emulator = { endpoint: aws.endpoints.sqs, region, credentials };
  const sns = new SNSClient(emulator);
  const eventBridge = options.eventBridgeClient ?? new EventBridgeClient(emulator);
  const streams = new DynamoDBStreamsClient({
    endpoint: aws.endpoints.dynamodb,
    region,
    credentials,
  });
  const logger = recordingLogger();
  const relay = createOutboxRelay({
    deadLetter: { queueUrl: deadLetterQueueUrl },
    sender: new AwsOutboxSender({
      sqsClient: aws.sqs,
      snsClient: sns,
      eventBridgeClient: eventBridge,
    }),
    observability: { logger: logger },
  });
  const mapping = new LocalStreamMapping({
    tableName,
    handler: options.wrap?.(relay) ?? ((event, context) => relay.process(event, context)),
    clients: { dynamodb: aws.dynamodb, streams, sqs: aws.sqs },
    batchSize: options.batchSize ?? 10,
    eventNames: ['INSERT', 'MODIFY'],
    onFailureQueueUrl: deadLetterQueueUrl,
    maximumRetryAttempts: 3,
    maximumRecordAgeSeconds: -1,
    bisectBatchOnFunctionError: true,
    reportBatchItemFailures: true,
    pollMillis: 50,
    ...options.policy,
  });
  await mapping.start();
  return {
    mapping,
    logger,
    async stop() {
      await mapping.stop();
      for (const client of [sns, streams]) client.destroy();
      if (options.eventBridgeClient === undefined) eventBridge.destroy();
    },
  };
}
