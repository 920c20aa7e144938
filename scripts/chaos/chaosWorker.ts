/**
 * One consumer process of the chaos run (bundled by `bundleChaosWorker`, spawned by
 * `ChaosSupervisor`). It does what Lambda's SQS event source mapping and one function instance
 * do — receive a batch, run it through the consumer's inbox processor, delete what did not fail —
 * with AWS faults injected into its clients and a crash switch at the five crash points.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { inboxPk, type MessageHandler } from 'sqs-inbox';
import { inventoryConsumer } from '../../functions/inventory/orderPlaced.js';
import { ledgerConsumer } from '../../functions/ledger/paymentCaptured.js';
import { seededRandom } from '../local/demoTraffic.js';
import { createLocalProcessor, toRecord } from '../local/LocalEventSourceMapping.js';
import { type BatchInProgress, CrashSwitch } from './CrashSwitch.js';
import { injectFaults } from './injectFaults.js';
import {
  CrashPoint,
  type HeldMessage,
  type SupervisorCommand,
  type WorkerConfig,
  type WorkerReport,
} from './workerProtocol.js';

const config = JSON.parse(process.env.CHAOS_WORKER ?? '{}') as WorkerConfig;
const random = seededRandom(config.seed);
const consumerName = config.mapping.environment.INBOX_CONSUMER ?? config.consumer;
const batch: BatchInProgress = { size: 0, committed: 0, receivedAtMillis: 0 };

function report(message: WorkerReport, sent?: () => void): void {
  process.send?.(message, undefined, {}, sent);
}

const questions = new Map<number, (yes: boolean) => void>();
let nextQuestionId = 0;
const crashSwitch = new CrashSwitch({
  point: config.crashPoint,
  passes: config.crashAfter,
  visibilitySeconds: config.visibilitySeconds,
  random,
  report,
  ask: (question, message, waitMillis) =>
    new Promise((resolve) => {
      const id = nextQuestionId++;
      questions.set(id, resolve);
      report({ type: 'question', id, question, message, waitMillis });
    }),
});
process.on('message', (command: SupervisorCommand) => {
  if (command.type === 'disarm') crashSwitch.disarm();
  else questions.get(command.id)?.(command.yes);
  if (command.type === 'answer') questions.delete(command.id);
});
process.on('disconnect', () => process.exit(0));

const clientConfig = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
};
const clients = {
  dynamodb: new DynamoDBClient({ ...clientConfig, endpoint: config.endpoints.dynamodb }),
  sqs: new SQSClient({ ...clientConfig, endpoint: config.endpoints.sqs }),
};
watchTransactions(clients.dynamodb);
for (const [service, client] of [
  ['dynamodb', clients.dynamodb],
  ['sqs', clients.sqs],
] as const) {
  injectFaults(client, {
    service,
    rate: config.faultRate,
    random,
    onFault: (fault) => report({ type: 'fault', fault }),
  });
}

const processorOptions = {
  metrics: {
    addMetric: (name: string, unit: string, value: number) => {
      if (unit === 'Count') report({ type: 'metric', name, value });
    },
  },
  wrapHandler: withCrashSwitch,
};
const processor =
  config.consumer === 'ledger'
    ? createLocalProcessor(config.mapping, ledgerConsumer, clients, processorOptions)
    : createLocalProcessor(config.mapping, inventoryConsumer, clients, processorOptions);
await pollForever();

/** The crash points around each TransactWriteItems: before it is sent, after it returns. */
function watchTransactions(client: DynamoDBClient): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
      const pk = inboxPkOf(args.input);
      await crashSwitch.beforeTransaction(pk);
      let result: Awaited<ReturnType<typeof next>>;
      try {
        result = await next(args);
      } catch (error) {
        await crashSwitch.afterTransaction(pk, (error as Error).name, batch);
        throw error;
      }
      batch.committed++;
      await crashSwitch.afterTransaction(pk, 'committed', batch);
      return result;
    },
    { step: 'initialize', name: 'chaosCrashPoints', priority: 'high' },
  );
}

/** The library puts the inbox entry first in every transaction. */
function inboxPkOf(input: unknown): string {
  const items = (input as { TransactItems?: Array<{ Put?: { Item?: Record<string, unknown> } }> })
    .TransactItems;
  const pk = items?.[0]?.Put?.Item?.pk;
  return typeof pk === 'string' ? pk : String((pk as { S?: string } | undefined)?.S);
}

function withCrashSwitch<TBody>(handler: MessageHandler<TBody>): MessageHandler<TBody> {
  return async (message, tx) => {
    const held = { messageId: message.messageId, key: message.key };
    await crashSwitch.beforeHandler(held, inboxPk(consumerName, message.key), batch);
    return handler(message, tx);
  };
}

async function pollForever(): Promise<never> {
  const { queueUrl, queueArn } = config.mapping;
  for (;;) {
    let messages: Message[];
    try {
      ({ Messages: messages = [] } = await clients.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: Math.min(config.mapping.batchSize, 10),
          WaitTimeSeconds: 1,
          VisibilityTimeout: config.visibilitySeconds,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      ));
    } catch {
      continue; // a failed receive: its messages, if any, come back after the visibility timeout
    }
    if (messages.length > 0) await processBatch(messages, queueUrl, queueArn);
  }
}

async function processBatch(messages: Message[], queueUrl: string, queueArn: string) {
  Object.assign(batch, { size: messages.length, committed: 0, receivedAtMillis: Date.now() });
  report({ type: 'received', messages: messages.map(heldMessage) });
  const response = await processor.process({ Records: messages.map((m) => toRecord(m, queueArn)) });
  const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
  if (batch.committed > 0)
    await crashSwitch.reach(
      CrashPoint.AfterCommit,
      `batch of ${batch.size} settled, ${batch.committed} committed, ${failed.size} failed; response not sent`,
    );
  const done = messages.filter((message) => !failed.has(message.MessageId ?? ''));
  for (let i = 0; i < done.length; i += 10) {
    const entries = done
      .slice(i, i + 10)
      .map((m, index) => ({ Id: String(index), ReceiptHandle: m.ReceiptHandle }));
    // A failed delete only means the messages come back: the inbox makes them duplicates.
    await clients.sqs
      .send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }))
      .catch(() => undefined);
  }
  report({ type: 'settled', messageIds: messages.map((m) => m.MessageId ?? '') });
}

function heldMessage(message: Message): HeldMessage {
  try {
    const { eventId } = JSON.parse(message.Body ?? '') as { eventId?: unknown };
    return {
      messageId: message.MessageId ?? '',
      key: typeof eventId === 'string' ? eventId : undefined,
    };
  } catch {
    return { messageId: message.MessageId ?? '', key: undefined };
  }
}
