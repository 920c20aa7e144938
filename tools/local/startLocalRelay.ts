import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { InboxLogger } from 'sqs-inbox';
import { AwsOutboxSender, createOutboxRelay } from 'sqs-inbox/relay';
import { OutcomeCounter } from './LocalEventSourceMapping.js';
import { LocalStreamMapping } from './LocalStreamMapping.js';
import type { LocalClients } from './localClients.js';
import type { LocalStreamSpec } from './streamMappingsOf.js';

const quiet: InboxLogger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * An outbox relay as the deployed function runs it (the library's relay, the construct's
 * dead-letter queue), fed by the local stream mapping with the template's settings, sending
 * through the emulator's SQS, SNS and EventBridge. Counts what it relayed.
 */
export async function startLocalRelay(
  spec: LocalStreamSpec,
  clients: LocalClients,
  streamsEndpoint: string,
): Promise<{ mapping: LocalStreamMapping; counter: OutcomeCounter; stop: () => Promise<void> }> {
  const counter = new OutcomeCounter();
  const streams = new DynamoDBStreamsClient({
    endpoint: streamsEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const relay = createOutboxRelay({
    deadLetter: { queueUrl: spec.deadLetterQueueUrl },
    sender: new AwsOutboxSender({
      sqsClient: clients.sqs,
      snsClient: clients.sns,
      eventBridgeClient: clients.events,
    }),
    observability: { logger: quiet, metrics: counter },
  });
  const mapping = new LocalStreamMapping({
    ...spec,
    handler: (event, context) => relay.process(event, context),
    clients: { dynamodb: clients.dynamodb, streams, sqs: clients.sqs },
    functionName: 'outbox-relay',
  });
  await mapping.start();
  return {
    mapping,
    counter,
    async stop() {
      await mapping.stop();
      streams.destroy();
    },
  };
}
