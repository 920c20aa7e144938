/**
 * One consumer process of the chaos run (bundled by `bundleChaosWorkers`, spawned by
 * `ChaosSupervisor`). It does what Lambda's SQS event source mapping and one function instance
 * do — receive a batch, run it through the consumer's inbox processor, delete what did not fail —
 * with AWS faults injected into its clients and a crash switch at its crash points (the notifier's
 * step watch at points 7–10, the ledger's published commits at 13).
 */
import { writeSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { type MessageHandler, Precheck } from 'sqs-inbox';
import { InboxEnvironment, InboxMetric, inboxPk, OutboxMessageIdField } from 'sqs-inbox/constants';
import { inventoryConsumer } from '../../functions/inventory/orderPlaced.js';
import { ledgerConsumer } from '../../functions/ledger/paymentCaptured.js';
import { NotifierEnvironment } from '../../functions/notifier/notifierEnvironment.js';
import { notifierConsumer } from '../../functions/notifier/paymentNotification.js';
import { seededRandom } from '../local/demoTraffic.js';
import { createLocalProcessor, toRecord } from '../local/LocalEventSourceMapping.js';
import { type BatchInProgress, CrashSwitch } from './CrashSwitch.js';
import { counterConsumer } from './counterConsumer.js';
import { injectFaults } from './injectFaults.js';
import { StepWatch } from './StepWatch.js';
import {
  CRASH_CHANNEL_FD,
  CrashPoint,
  HANGING_FUNCTION_TIMEOUT_MILLIS,
  type HeldMessage,
  HUNG_BATCH_LATE,
  INBOX_CONDITION_LOST,
  NOTIFIER_LEASE_MILLIS,
  SLOW_DOWNSTREAM_MILLIS,
  type StepReport,
  type SupervisorCommand,
  type WorkerConfig,
  type WorkerReport,
} from './workerProtocol.js';

const config = JSON.parse(process.env.CHAOS_WORKER ?? '{}') as WorkerConfig;
const consumerName = config.mapping.environment[InboxEnvironment.Consumer] ?? config.consumer;
const batch: BatchInProgress = { size: 0, committed: 0, settled: 0, receivedAtMillis: 0 };
// Each record ends with exactly one of these metrics from the library.
const OUTCOME_METRICS = new Set<string>([
  InboxMetric.Processed,
  InboxMetric.Duplicates,
  InboxMetric.Failures,
]);
// The supervisor kills within milliseconds; a worker still alive after this kills itself.
const FREEZE_LIMIT_MILLIS = 15_000;

function report(message: WorkerReport, sent?: () => void): void {
  process.send?.(message, undefined, {}, sent);
}

const questions = new Map<number, (yes: boolean) => void>();
let nextQuestionId = 0;
const crashSwitch = new CrashSwitch({
  point: config.crashPoint,
  passes: config.crashAfter,
  visibilitySeconds: config.visibilitySeconds,
  random: seededRandom(config.seed ^ 0x5bd1e995),
  halt: (crash) => {
    writeSync(CRASH_CHANNEL_FD, `${JSON.stringify(crash)}\n`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, FREEZE_LIMIT_MILLIS);
    process.kill(process.pid, 'SIGKILL');
  },
  ask: (question, message, waitMillis) =>
    new Promise((resolve) => {
      const id = nextQuestionId++;
      questions.set(id, resolve);
      report({ type: 'question', id, question, message, waitMillis });
    }),
});
process.on('message', (command: SupervisorCommand) => {
  if (command.type === 'disarm') crashSwitch.disarm();
  else if (command.type === 'resumed') stepWatch?.resumed(command.pk, command.takenOver);
  else {
    questions.get(command.id)?.(command.yes);
    questions.delete(command.id);
  }
});
process.on('disconnect', () => process.exit(0));

const clientConfig = {
  // A stalled request becomes a TimeoutError rather than a worker hung for good (as in the
  // reference function); the timeout stays above the receive's 1 s long poll.
  requestHandler: { connectionTimeout: 2_000, requestTimeout: 5_000, throwOnRequestTimeout: true },
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
    // One stream per client: DynamoDB's fault decisions do not depend on how often SQS polled.
    random: seededRandom(config.seed + (service === 'sqs' ? 7_919 : 0)),
    onFault: (fault) => report({ type: 'fault', fault }),
  });
}

const processorOptions = {
  metrics: {
    addMetric: (name: string, unit: string, value: number) => {
      if (OUTCOME_METRICS.has(name)) batch.settled += value;
      if (unit === 'Count') report({ type: 'metric', name, value });
    },
  },
  wrapHandler: withCrashSwitch,
  precheck: config.precheck ? Precheck.Concurrent : Precheck.Off,
  coalesce: config.coalesce,
};
const stepWatch =
  config.consumer === 'notifier'
    ? new StepWatch({
        consumer: consumerName,
        crashSwitch,
        random: seededRandom(config.seed ^ 0x27d4eb2f),
        report: (step: StepReport) => writeSync(CRASH_CHANNEL_FD, `${JSON.stringify(step)}\n`),
        slowDownstreamMillis: SLOW_DOWNSTREAM_MILLIS,
      })
    : undefined;
const processor = createProcessor();
await pollForever();

function createProcessor() {
  const { mapping } = config;
  if (config.consumer === 'ledger')
    return createLocalProcessor(mapping, ledgerConsumer, clients, processorOptions);
  if (config.consumer === 'inventory')
    return createLocalProcessor(mapping, inventoryConsumer, clients, processorOptions);
  if (config.consumer === 'counter')
    return createLocalProcessor(mapping, counterConsumer, clients, processorOptions);
  // The notifier's SES and S3 are the emulator's (MiniStack), whatever serves DynamoDB.
  const effects = { ...clientConfig, endpoint: config.endpoints.sqs };
  const ses = new SESv2Client(effects);
  const s3 = new S3Client({ ...effects, forcePathStyle: true });
  stepWatch?.watchEntries(clients.dynamodb);
  stepWatch?.watchEffect(ses, 'email', eventIdOfEmail);
  stepWatch?.watchEffect(s3, 'receipt', eventIdOfReceipt);
  const notifier = notifierConsumer({
    ses,
    s3,
    receiptsBucket: mapping.environment[NotifierEnvironment.ReceiptsBucket] ?? '',
    sender: mapping.environment[NotifierEnvironment.Sender] ?? '',
  });
  // Its notifications come from the ledger's outbox, through the relay (sources `outbox`).
  return createLocalProcessor(mapping, notifier, clients, {
    ...processorOptions,
    // Short, so heartbeats renew it while the slowed steps run and a freeze outlives it.
    leaseMillis: NOTIFIER_LEASE_MILLIS,
  });
}

/** The event an email is for: its subject ends with the event id in parentheses. */
function eventIdOfEmail(input: unknown): string | undefined {
  const subject = (input as { Content?: { Simple?: { Subject?: { Data?: string } } } }).Content
    ?.Simple?.Subject?.Data;
  return subject ? /\(([^()]+)\)$/.exec(subject)?.[1] : undefined;
}

/** The event a receipt is for: its body is the notification without the address. */
function eventIdOfReceipt(input: unknown): string | undefined {
  const { Body } = input as { Body?: unknown };
  return typeof Body === 'string' ? eventIdOf(Body) : undefined;
}

function eventIdOf(body: string): string | undefined {
  try {
    const { eventId } = JSON.parse(body) as { eventId?: unknown };
    return typeof eventId === 'string' ? eventId : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The crash points around each TransactWriteItems: before it is sent, after it returns (at
 * point 13 before the library reads the answer of one that published).
 */
function watchTransactions(client: DynamoDBClient): void {
  const outboxTable = config.mapping.environment[InboxEnvironment.OutboxTableName];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
      const pk = inboxPkOf(args.input);
      const published = outboxWritesIn(args.input, outboxTable);
      await crashSwitch.beforeTransaction(pk);
      let result: Awaited<ReturnType<typeof next>>;
      try {
        result = await next(args);
      } catch (error) {
        if (lostInboxCondition(error))
          report({ type: 'metric', name: INBOX_CONDITION_LOST, value: 1 });
        await crashSwitch.afterTransaction(pk, (error as Error).name, batch);
        throw error;
      }
      batch.committed++;
      if (published > 0)
        await crashSwitch.reach(
          CrashPoint.PublishCommitted,
          `${pk} committed with ${published} outbox item(s); its answer not read`,
        );
      await crashSwitch.afterTransaction(pk, 'committed', batch);
      return result;
    },
    { step: 'initialize', name: 'chaosCrashPoints', priority: 'high' },
  );
}

/** The library puts the inbox entry first in every transaction: a Put, or with steps an Update. */
function inboxPkOf(input: unknown): string {
  const items = (
    input as {
      TransactItems?: Array<{
        Put?: { Item?: Record<string, unknown> };
        Update?: { Key?: Record<string, unknown> };
      }>;
    }
  ).TransactItems;
  const pk = items?.[0]?.Put?.Item?.pk ?? items?.[0]?.Update?.Key?.pk;
  return typeof pk === 'string' ? pk : String((pk as { S?: string } | undefined)?.S);
}

/** How many of a transaction's writes go to the outbox table (none without one). */
function outboxWritesIn(input: unknown, outboxTable: string | undefined): number {
  if (outboxTable === undefined) return 0;
  const items = (input as { TransactItems?: Array<Record<string, { TableName?: string }>> })
    .TransactItems;
  return (items ?? []).filter((item) =>
    Object.values(item).some((write) => write.TableName === outboxTable),
  ).length;
}

/** A copy that reached the commit and lost the inbox entry's condition (the entry is first). */
function lostInboxCondition(error: unknown): boolean {
  const reasons = error as { name?: string; CancellationReasons?: Array<{ Code?: string }> };
  return (
    reasons.name === 'TransactionCanceledException' &&
    reasons.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed'
  );
}

/** The crash points around the handler, and the probe: one more counter per committed key. */
function withCrashSwitch<TBody>(handler: MessageHandler<TBody>): MessageHandler<TBody> {
  return async (message, tx) => {
    const pk = inboxPk(consumerName, message.key);
    await crashSwitch.beforeHandler(
      { messageId: message.messageId, key: message.key },
      pk,
      batch,
      message.signal,
    );
    await handler(message, tx);
    tx.update({
      TableName: config.probeTable,
      Key: { pk },
      UpdateExpression: 'ADD commits :one',
      ExpressionAttributeValues: { ':one': 1 },
    });
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
  Object.assign(batch, {
    size: messages.length,
    committed: 0,
    settled: 0,
    receivedAtMillis: Date.now(),
  });
  report({ type: 'received', messages: messages.map(heldMessage) });
  const startedMillis = performance.now();
  const response = await processor.process(
    { Records: messages.map((m) => toRecord(m, queueArn)) },
    lambdaContext(startedMillis),
  );
  const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
  await crashSwitch.batchAnswered(failed, performance.now() - startedMillis, () =>
    report({ type: 'metric', name: HUNG_BATCH_LATE, value: 1 }),
  );
  crashSwitch.batchSettled();
  await stepWatch?.batchSettled();
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

/**
 * A worker at point 6 runs its batches as a Lambda with a short timeout does, so the library's
 * deadline applies; the others run without a context, as before (no deadline).
 */
function lambdaContext(startedMillis: number): Context | undefined {
  if (config.crashPoint !== CrashPoint.HangingHandler) return undefined;
  const remaining = () => HANGING_FUNCTION_TIMEOUT_MILLIS - (performance.now() - startedMillis);
  return { getRemainingTimeInMillis: remaining } as unknown as Context;
}

function heldMessage(message: Message): HeldMessage {
  const outboxId = message.MessageAttributes?.[OutboxMessageIdField.Attribute]?.StringValue;
  return {
    messageId: message.MessageId ?? '',
    key: eventIdOf(message.Body ?? ''),
    ...(outboxId === undefined ? {} : { outboxId }),
  };
}
