/**
 * One process of the ledger's outbox relay in the chaos run (bundled by `bundleChaosWorkers`,
 * spawned by `ChaosRelay`): the library's relay, as the deployed function runs it, invoked over
 * IPC by the run's stream mapping with each batch of the outbox stream. Its SQS client fails
 * requests as the consumers' do, and a crash switch kills it mid-batch (some messages sent) or
 * after the sends, before its answer: the mapping sees a function error and retries the batch.
 */
import { writeSync } from 'node:fs';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import type { InboxLogger } from 'sqs-inbox';
import { OutboxAttribute } from 'sqs-inbox/constants';
import { AwsOutboxSender, createOutboxRelay } from 'sqs-inbox/relay';
import { seededRandom } from '../local/demoTraffic.js';
import { CrashSwitch } from './CrashSwitch.js';
import { injectFaults } from './injectFaults.js';
import {
  CRASH_CHANNEL_FD,
  CrashPoint,
  type RelayInvocation,
  type RelayReport,
  type RelayWorkerConfig,
} from './workerProtocol.js';

const config = JSON.parse(process.env.CHAOS_RELAY ?? '{}') as RelayWorkerConfig;
// The supervisor kills within milliseconds; a relay still alive after this kills itself.
const FREEZE_LIMIT_MILLIS = 15_000;
const quiet: InboxLogger = { debug() {}, info() {}, warn() {}, error() {} };

function report(message: RelayReport): void {
  process.send?.(message);
}

const crashSwitch = new CrashSwitch({
  point: config.crashPoint,
  passes: config.crashAfter,
  visibilitySeconds: 0,
  random: seededRandom(config.seed ^ 0x5bd1e995),
  halt: (crash) => {
    writeSync(CRASH_CHANNEL_FD, `${JSON.stringify(crash)}\n`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, FREEZE_LIMIT_MILLIS);
    process.kill(process.pid, 'SIGKILL');
  },
  // The relay's points never wait for another process.
  ask: () => Promise.resolve(false),
});

const clientConfig = {
  endpoint: config.endpoint,
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
};
const sqs = new SQSClient(clientConfig);
/** The invocation in progress: messages its records carry, and sends that succeeded. */
const invocation = { messages: 0, sent: 0 };
watchSends(sqs);
injectFaults(sqs, {
  service: 'sqs',
  rate: config.faultRate,
  random: seededRandom(config.seed + 7_919),
  onFault: (fault) => report({ type: 'fault', fault }),
});
const relay = createOutboxRelay({
  deadLetter: { queueUrl: config.deadLetterQueueUrl },
  sender: new AwsOutboxSender({
    sqsClient: sqs,
    snsClient: new SNSClient(clientConfig),
    eventBridgeClient: new EventBridgeClient(clientConfig),
  }),
  observability: {
    logger: quiet,
    metrics: {
      addMetric: (name: string, unit: string, value: number) => {
        if (unit === 'Count') report({ type: 'metric', name, value });
      },
    },
  },
});

process.on('message', (command: RelayInvocation) => {
  if (command.type === 'invoke') void invoke(command);
  else crashSwitch.disarm();
});
process.on('disconnect', () => process.exit(0));
report({ type: 'ready' });

async function invoke({ id, event }: Extract<RelayInvocation, { type: 'invoke' }>): Promise<void> {
  Object.assign(invocation, { messages: messagesIn(event.Records), sent: 0 });
  const startedMillis = Date.now();
  const context = {
    functionName: 'outbox-relay',
    awsRequestId: `chaos-relay-${config.workerId}-${id}`,
    getRemainingTimeInMillis: () => config.timeoutMillis - (Date.now() - startedMillis),
  } as Context;
  let response: Awaited<ReturnType<typeof relay.process>>;
  try {
    response = await relay.process(event, context);
  } catch (error) {
    // A function error, as Lambda sees a handler that throws: the mapping retries the batch.
    report({ type: 'error', id, message: (error as Error).message });
    return;
  }
  if (invocation.sent > 0)
    await crashSwitch.reach(
      CrashPoint.RelayAfterSend,
      `${invocation.sent} of ${invocation.messages} messages sent, ${response.batchItemFailures.length} records failed; answer not out`,
    );
  report({ type: 'response', id, response });
}

/** Point 12: right after a send succeeded while others of the invocation are not done. */
function watchSends(client: SQSClient): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { QueueUrl?: string };
      const result = await next(args);
      if (context.commandName !== 'SendMessageCommand') return result;
      if (input.QueueUrl === config.deadLetterQueueUrl) return result;
      invocation.sent += 1;
      if (invocation.sent < invocation.messages)
        await crashSwitch.reach(
          CrashPoint.RelayMidBatch,
          `${invocation.sent} of ${invocation.messages} messages sent, the others not yet`,
        );
      return result;
    },
    { step: 'initialize', name: 'chaosRelayCrashPoints', priority: 'high' },
  );
}

/** The messages the event's new images carry (one per message item, a group's list). */
function messagesIn(records: readonly unknown[]): number {
  let total = 0;
  for (const record of records) {
    const image = (record as { dynamodb?: { NewImage?: Record<string, { L?: unknown[] }> } })
      .dynamodb?.NewImage;
    total += image?.[OutboxAttribute.Messages]?.L?.length ?? 0;
  }
  return total;
}
