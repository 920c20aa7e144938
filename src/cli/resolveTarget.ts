import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lambdaFunctionTarget } from '../aws/lambdaFunctionTarget.js';
import type { OperatorClients, OperatorConnection } from '../aws/operatorClients.js';
import { InboxEnvironment } from '../constants/values.js';
import { UsageError } from './CliError.js';
import type { CliIo } from './CliIo.js';
import type { CommonValues } from './cliOptions.js';
import { environmentOfFlags } from './consumerFlags.js';

/** Where `npm start -- --keep-running` records the local service, under the working directory. */
export const LOCAL_RUN_PATH = join('.cache', 'local-run.json');

/**
 * The consumer a command works on: its `INBOX_*` environment (from its function, the local
 * run, or the command line) and the queue its function reads.
 *
 * @example
 * ```ts
 * const target = await resolveTarget(values, positionals[0], io, clients);
 * ```
 */
export interface ConsumerTarget {
  readonly consumer: string;
  readonly environment: Readonly<Record<string, string>>;
  readonly sourceQueueArn?: string;
  readonly functionName?: string;
}

interface Found {
  readonly environment: Readonly<Record<string, string>>;
  readonly sourceQueueArn?: string;
  readonly functionName?: string;
}

interface LocalRun {
  readonly endpoint: string;
  readonly outbox?: { readonly deadLetterQueueUrl?: string };
  readonly consumers: Record<string, { readonly environment?: Record<string, string> }>;
}

/**
 * The connection of the command: `--local` reads the local run's endpoint (with the emulator's
 * test credentials); otherwise the SDK's chain with `--profile`, `--region`, `--endpoint-url`.
 *
 * @example
 * ```ts
 * const clients = operatorClients(connectionOf(values, io));
 * ```
 */
export function connectionOf(values: CommonValues, io: CliIo): OperatorConnection {
  if (values.local) {
    const run = localRun(io);
    return {
      endpoint: run.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    };
  }
  return {
    ...(values.profile ? { profile: values.profile } : {}),
    ...(values.region ? { region: values.region } : {}),
    ...(values['endpoint-url'] ? { endpoint: values['endpoint-url'] } : {}),
  };
}

/**
 * Finds the consumer: by `--function` (its environment and its SQS event source mapping), by
 * `--local` (the run file), or from `--table`, `--dlq`, `--queue` … and the consumer's name.
 * Explicit flags override what the function or run says.
 *
 * @example
 * ```ts
 * const { consumer, environment } = await resolveTarget(values, 'ledger', io, clients);
 * ```
 */
export async function resolveTarget(
  values: CommonValues,
  positional: string | undefined,
  io: CliIo,
  clients: OperatorClients,
): Promise<ConsumerTarget> {
  const found: Found = values.function
    ? await fromFunction(values.function, clients, io)
    : values.local
      ? fromLocalRun(positional ?? values.consumer, io)
      : { environment: {} };
  const environment = { ...found.environment, ...explicitEnvironment(values, positional) };
  const consumer = environment[InboxEnvironment.Consumer];
  if (!consumer) {
    throw new UsageError(
      'which consumer? give --function <name>, or its name and --table (see: sqs-inbox --help)',
    );
  }
  if (positional && positional !== consumer) {
    throw new UsageError(`the function serves consumer ${consumer}, not ${positional}`);
  }
  const sourceQueueArn = values.queue ? queueArnOf(values.queue) : found.sourceQueueArn;
  return {
    consumer,
    environment,
    ...(sourceQueueArn ? { sourceQueueArn } : {}),
    ...(found.functionName ? { functionName: found.functionName } : {}),
  };
}

/**
 * A variable of the target's environment, or a `UsageError` naming the flag that gives it.
 *
 * @example
 * ```ts
 * const dlqUrl = required(target, InboxEnvironment.DeadLetterQueueUrl, '--dlq <url>');
 * ```
 */
export function required(target: ConsumerTarget, variable: string, flag: string): string {
  const value = target.environment[variable];
  if (!value) throw new UsageError(`this command needs ${flag} (or --function)`);
  return value;
}

async function fromFunction(
  functionName: string,
  clients: OperatorClients,
  io: CliIo,
): Promise<Found> {
  const found = await lambdaFunctionTarget(clients, functionName);
  if (!found.environment[InboxEnvironment.Consumer]) {
    throw new UsageError(
      `function ${found.functionName} has no ${InboxEnvironment.Consumer}: it is not an InboxConsumer's`,
    );
  }
  if (found.sourceQueueArns.length > 1) {
    io.stderr(
      `function ${found.functionName} reads ${found.sourceQueueArns.length} queues; using the first\n`,
    );
  }
  const [sourceQueueArn] = found.sourceQueueArns;
  return {
    environment: found.environment,
    functionName: found.functionName,
    ...(sourceQueueArn ? { sourceQueueArn } : {}),
  };
}

function fromLocalRun(consumer: string | undefined, io: CliIo): Found {
  const run = localRun(io);
  const names = Object.keys(run.consumers);
  const entry = consumer === undefined ? undefined : run.consumers[consumer];
  if (entry?.environment === undefined) {
    throw new UsageError(`which consumer of the local run? one of ${names.join(', ')}`);
  }
  return {
    environment: {
      ...entry.environment,
      ...(run.outbox?.deadLetterQueueUrl === undefined
        ? {}
        : { [InboxEnvironment.RelayDeadLetterQueueUrl]: run.outbox.deadLetterQueueUrl }),
    } as Record<string, string>,
  };
}

/**
 * The relay dead-letter queue of the local run (`npm start -- --keep-running`), if it has one.
 *
 * @example
 * ```ts
 * const queueUrl = values['queue-url'] ?? localRelayQueueUrl(io);
 * ```
 */
export function localRelayQueueUrl(io: CliIo): string | undefined {
  return localRun(io).outbox?.deadLetterQueueUrl;
}

function localRun(io: CliIo): LocalRun {
  const path = join(io.cwd, LOCAL_RUN_PATH);
  if (!existsSync(path)) {
    throw new UsageError(
      `--local: no ${LOCAL_RUN_PATH} here; start one with npm start -- --keep-running`,
    );
  }
  return JSON.parse(readFileSync(path, 'utf8')) as LocalRun;
}

function explicitEnvironment(values: CommonValues, positional: string | undefined) {
  const consumer = values.consumer ?? (values.function ? undefined : positional);
  return {
    ...(consumer === undefined ? {} : { [InboxEnvironment.Consumer]: consumer }),
    ...environmentOfFlags(values),
  };
}

/** A queue's ARN from its URL (`https://sqs.<region>.amazonaws.com/<account>/<name>`) or ARN. */
function queueArnOf(queue: string): string {
  if (queue.startsWith('arn:')) return queue;
  const url = new URL(queue);
  const [account, name] = url.pathname.split('/').filter(Boolean);
  const region = /sqs\.([a-z0-9-]+)\./.exec(url.hostname)?.[1] ?? 'us-east-1';
  if (!account || !name) throw new UsageError(`--queue takes a queue URL or ARN, not ${queue}`);
  return `arn:aws:sqs:${region}:${account}:${name}`;
}
