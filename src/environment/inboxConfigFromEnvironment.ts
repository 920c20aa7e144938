import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDBInboxStore } from '../aws/DynamoDBInboxStore.js';
import {
  businessTableVariable,
  CONSUMER_NAME_PATTERN,
  CONSUMER_NAME_RULE,
  destinationVariable,
  InboxEnvironment,
  MAX_RECEIVE_COUNT_RANGE,
  TTL_SECONDS_RANGE,
} from '../constants/values.js';
import { isQueueUrl } from '../core/optionChecks.js';
import type { ParsedMessage } from '../core/types.js';
import { EnvironmentError, InvalidConfigurationError } from '../errors.js';
import { DECLARED_KEY_RULE, keyFromDeclaration, parseDeclaredKey } from '../sources/declaredKey.js';
import { MessageSource } from '../sources/MessageSource.js';
import { resolveSources } from '../sources/resolveSources.js';
import { outboxOf } from './outboxOf.js';
import { retryFromEnvironment } from './retryFromEnvironment.js';

/**
 * Options of {@link inboxConfigFromEnvironment}.
 *
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * const options: InboxEnvironmentOptions = { dynamoDBClient: new DynamoDBClient({ maxAttempts: 5 }) };
 * ```
 * @public
 */
export interface InboxEnvironmentOptions {
  /** The variables to read; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The client of the inbox store; default built lazily by `DynamoDBInboxStore`. */
  readonly dynamoDBClient?: DynamoDBClient | DynamoDBDocumentClient;
  /** The client of the dead-letter queue and of `retry`; default built lazily on first use. */
  readonly sqsClient?: SQSClient;
}

/**
 * What a function deployed by the `InboxConsumer` construct needs, read from its environment.
 * `options` spreads into the processor's options; `table(name)` gives a business table's name.
 *
 * @example
 * ```ts
 * const inbox = inboxConfigFromEnvironment();
 * const accountsTable = inbox.table('accounts');
 * const processor = createBatchProcessor(handler, {
 *   ...inbox.options, schema: PaymentSchema, key: ({ body }) => body.eventId,
 * });
 * ```
 * @public
 */
export interface InboxEnvironmentConfig {
  /**
   * The inbox options the environment fixes: store, consumer, the declared sources, TTL, the
   * `deadLetter` group (the DLQ, its client and the source queue's maxReceiveCount), and the key
   * when the construct declares one (its `key`). Spread it first, then add your own options; a
   * `deadLetter` of your own replaces this one whole (pass `sqsClient` above for its client).
   */
  readonly options: {
    readonly store: DynamoDBInboxStore;
    readonly consumer: string;
    readonly sources: readonly MessageSource[];
    readonly key?: (message: ParsedMessage<unknown>) => string;
    readonly ttlSeconds: number;
    readonly deadLetter: {
      readonly queueUrl: string;
      readonly maxReceiveCount: number;
      readonly client?: SQSClient;
    };
    /** Set when the construct's `retry` is (any `INBOX_RETRY_*` variable); its client `sqsClient`. */
    readonly retry?: {
      readonly backoff?: { readonly firstDelaySeconds: number; readonly maxDelaySeconds: number };
      readonly leaseHeldMarginSeconds?: number;
      readonly client?: SQSClient;
    };
  };
  /** The business tables by logical name (the keys of the construct's `businessTables`). */
  readonly tables: Readonly<Record<string, string>>;
  /** A business table's name; throws `EnvironmentError` naming the tables there are. */
  table(name: string): string;
  /** The outbox destinations by logical name (the keys of the construct's `outbox.destinations`). */
  readonly destinations: Readonly<Record<string, string>>;
  /**
   * An outbox destination's address, for `tx.publish({ destination })`; throws
   * `EnvironmentError` naming the destinations there are.
   */
  destination(name: string): string;
}

/**
 * Reads the environment contract that the `InboxConsumer` construct (`sqs-inbox/cdk`) sets on
 * the function — inbox table, consumer, TTL, dead-letter queue and business tables — and
 * builds the inbox options from it. Call it at module scope, so that a function deployed
 * without its variables fails at cold start with an `EnvironmentError` that names every
 * missing one, before any message is read.
 *
 * @example
 * ```ts
 * import { createBatchProcessor, inboxConfigFromEnvironment } from 'sqs-inbox';
 * const inbox = inboxConfigFromEnvironment();
 * const accounts = inbox.table('accounts');
 * export const handler = createBatchProcessor(async ({ body }, tx) => {
 *   tx.update({ TableName: accounts, Key: { accountId: body.accountId },
 *     UpdateExpression: 'ADD balanceCents :a', ExpressionAttributeValues: { ':a': body.amountCents } });
 * }, { ...inbox.options, schema: PaymentSchema, key: ({ body }) => body.eventId }).process;
 * ```
 * @public
 */
export function inboxConfigFromEnvironment(
  options: InboxEnvironmentOptions = {},
): InboxEnvironmentConfig {
  const env = options.env ?? process.env;
  const read = requireAll(env, [
    InboxEnvironment.TableName,
    InboxEnvironment.Consumer,
    InboxEnvironment.TtlSeconds,
    InboxEnvironment.DeadLetterQueueUrl,
    InboxEnvironment.MaxReceiveCount,
  ]);
  const tables = prefixed(env, InboxEnvironment.BusinessTablePrefix);
  const destinations = prefixed(env, InboxEnvironment.DestinationPrefix);
  const key = env[InboxEnvironment.Key];
  return {
    options: {
      store: new DynamoDBInboxStore({
        tableName: read(InboxEnvironment.TableName),
        ...outboxOf(env),
        ...(options.dynamoDBClient ? { client: options.dynamoDBClient } : {}),
      }),
      consumer: parseConsumer(read(InboxEnvironment.Consumer)),
      // Unset: a function deployed without sources (or by an earlier construct) reads bodies as is.
      sources: parseSources(env[InboxEnvironment.Sources] || MessageSource.Sqs),
      ...(key ? { key: parseKey(key) } : {}),
      ttlSeconds: parseTtlSeconds(read(InboxEnvironment.TtlSeconds)),
      deadLetter: {
        queueUrl: parseQueueUrl(read(InboxEnvironment.DeadLetterQueueUrl)),
        maxReceiveCount: parseMaxReceiveCount(read(InboxEnvironment.MaxReceiveCount)),
        ...(options.sqsClient ? { client: options.sqsClient } : {}),
      },
      ...retryFromEnvironment(env, options.sqsClient),
    },
    tables,
    table: (name) => tableNamed(tables, name),
    destinations,
    destination: (name) => destinationNamed(destinations, name),
  };
}

function destinationNamed(destinations: Readonly<Record<string, string>>, name: string): string {
  const address = Object.hasOwn(destinations, name) ? destinations[name] : undefined;
  if (address !== undefined) return address;
  const known = Object.keys(destinations);
  throw new EnvironmentError(
    [destinationVariable(name)],
    'is not set',
    `Add "${name}" to the InboxConsumer's outbox.destinations` +
      (known.length > 0
        ? ` (the function has: ${known.join(', ')}).`
        : ' (the function has none).'),
  );
}

/** Checks that every variable is set, naming all missing ones at once; returns a reader. */
function requireAll(
  env: Readonly<Record<string, string | undefined>>,
  names: readonly string[],
): (name: string) => string {
  const missing = names.filter((name) => !env[name]);
  if (missing.length > 0) {
    throw new EnvironmentError(
      missing,
      missing.length > 1 ? 'are not set' : 'is not set',
      'Deploy the function with the InboxConsumer construct (sqs-inbox/cdk), which sets them, ' +
        `or set ${names.join(', ')} yourself.`,
    );
  }
  return (name) => env[name] ?? '';
}

function parseConsumer(text: string): string {
  if (!CONSUMER_NAME_PATTERN.test(text)) {
    throw new EnvironmentError(
      [InboxEnvironment.Consumer],
      `is ${JSON.stringify(text)}`,
      `Set it to ${CONSUMER_NAME_RULE}.`,
    );
  }
  return text;
}

function parseSources(text: string): readonly MessageSource[] {
  try {
    return resolveSources(text.split(',').map((source) => source.trim()));
  } catch (error) {
    if (!(error instanceof InvalidConfigurationError)) throw error;
    throw new EnvironmentError(
      [InboxEnvironment.Sources],
      `is ${JSON.stringify(text)}`,
      `Set it to comma-separated sources of ${Object.values(MessageSource).join(', ')}.`,
    );
  }
}

function parseKey(text: string): (message: ParsedMessage<unknown>) => string {
  const declared = parseDeclaredKey(text);
  if (declared === undefined) {
    throw new EnvironmentError(
      [InboxEnvironment.Key],
      `is ${JSON.stringify(text)}`,
      `Set it to ${DECLARED_KEY_RULE}, or leave it unset and pass the \`key\` option.`,
    );
  }
  return keyFromDeclaration(declared);
}

function parseQueueUrl(text: string): string {
  if (!isQueueUrl(text)) {
    throw new EnvironmentError(
      [InboxEnvironment.DeadLetterQueueUrl],
      `is ${JSON.stringify(text)}`,
      'Set it to the SQS URL of the dead-letter queue.',
    );
  }
  return text;
}

function parseMaxReceiveCount(text: string): number {
  const count = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (
    count < MAX_RECEIVE_COUNT_RANGE.min ||
    count > MAX_RECEIVE_COUNT_RANGE.max ||
    !Number.isInteger(count)
  ) {
    throw new EnvironmentError(
      [InboxEnvironment.MaxReceiveCount],
      `is ${JSON.stringify(text)}`,
      `Set it to the source queue's maxReceiveCount, ${MAX_RECEIVE_COUNT_RANGE.min} to ${MAX_RECEIVE_COUNT_RANGE.max}.`,
    );
  }
  return count;
}

function parseTtlSeconds(text: string): number {
  const ttlSeconds = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (
    !Number.isInteger(ttlSeconds) ||
    ttlSeconds < TTL_SECONDS_RANGE.min ||
    ttlSeconds > TTL_SECONDS_RANGE.max
  ) {
    throw new EnvironmentError(
      [InboxEnvironment.TtlSeconds],
      `is ${JSON.stringify(text)}`,
      `Set it to whole seconds from ${TTL_SECONDS_RANGE.min} to ${TTL_SECONDS_RANGE.max}.`,
    );
  }
  return ttlSeconds;
}

/** The variables with a prefix, by the rest of their name: business tables, destinations. */
function prefixed(
  env: Readonly<Record<string, string | undefined>>,
  prefix: string,
): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith(prefix) && value) found[name.slice(prefix.length)] = value;
  }
  return found;
}

function tableNamed(tables: Readonly<Record<string, string>>, name: string): string {
  const tableName = Object.hasOwn(tables, name) ? tables[name] : undefined;
  if (tableName === undefined) {
    const known = Object.keys(tables);
    throw new EnvironmentError(
      [businessTableVariable(name)],
      'is not set',
      `Add "${name}" to the InboxConsumer's businessTables` +
        (known.length > 0
          ? ` (the function has: ${known.join(', ')}).`
          : ' (the function has none).'),
    );
  }
  return tableName;
}
