import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  DestinationKind,
  OUTBOX_RETENTION_RANGE,
  SDK_DEFAULT_MAX_SOCKETS,
} from '../constants/values.js';
import { checkOptionsObject } from '../core/checkOptionsObject.js';
import { InvalidConfigurationError } from '../errors.js';
import { parseDestination } from '../outbox/Destination.js';
import { BOUNDED_REQUEST_HANDLER } from './boundedRequestHandler.js';
import { storeTranslateConfig } from './storeTranslateConfig.js';

/**
 * Options of {@link DynamoDBInboxStore}.
 *
 * @example
 * ```ts
 * const options: DynamoDBInboxStoreOptions = { tableName: 'inbox', clientConfig: { maxAttempts: 5 } };
 * ```
 * @public
 */
export interface DynamoDBInboxStoreOptions {
  /** The inbox table: partition key `pk` (string), TTL on `expiresAt`. */
  readonly tableName: string;
  /**
   * A client to use; a plain `DynamoDBClient` is wrapped in a document client. The processor's
   * default `performance.concurrency` then stays within the SDK's default pool of 50 sockets.
   * @defaultValue one built on the first call: it bounds its waits (3 s to connect, 10 s per
   * request, then a retryable `TimeoutError`) and opens as many connections as the processor's
   * `concurrency` (at least the SDK's 50), unless `clientConfig.requestHandler` says otherwise
   */
  readonly client?: DynamoDBDocumentClient | DynamoDBClient;
  /**
   * Configuration of the client built lazily when `client` is not given. Endpoints come from
   * the SDK's standard variables (`AWS_ENDPOINT_URL`, `AWS_ENDPOINT_URL_DYNAMODB`).
   * @defaultValue the SDK's, with the bounded waits and the pool described under `client`
   */
  readonly clientConfig?: DynamoDBClientConfig;
  /**
   * The outbox table that `tx.publish` writes to, in the same transaction: partition key `pk`
   * (string), TTL on `expiresAt`, a stream with new images. `retentionSeconds` is how long an
   * item stays, in whole seconds from 172,800 (2 days) to 31,622,400 (366 days), default 7
   * days. `pipeDestination`: the outbox is relayed by an
   * EventBridge pipe to this one SQS queue (`OutboxPipe`), which sends one message per item, so
   * a message to another destination, or a second one to one group in a transaction, is refused
   * (`OutgoingMessageError`). Behind the construct, `inboxConfigFromEnvironment()` sets it.
   * @defaultValue none: `tx.publish` is refused
   */
  readonly outbox?: {
    readonly tableName: string;
    readonly retentionSeconds?: number;
    readonly pipeDestination?: string;
  };
}

const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;
const STORE_OPTIONS = ['tableName', 'client', 'clientConfig', 'outbox'];

/**
 * The document client a store uses: the given one, a given plain client wrapped, or one built
 * with bounded timeouts and a pool of at least `concurrency` sockets.
 *
 * @example
 * ```ts
 * const client = documentClientFor({ tableName: 'inbox' }, 100);
 * ```
 */
export function documentClientFor(
  options: DynamoDBInboxStoreOptions,
  concurrency: number,
): DynamoDBDocumentClient {
  if (isDocumentClient(options.client)) return options.client;
  const pool = { maxSockets: Math.max(SDK_DEFAULT_MAX_SOCKETS, concurrency) };
  const requestHandler = { ...BOUNDED_REQUEST_HANDLER, httpAgent: pool, httpsAgent: pool };
  const base = options.client ?? new DynamoDBClient({ requestHandler, ...options.clientConfig });
  return DynamoDBDocumentClient.from(base, storeTranslateConfig());
}

function checkTableName(option: string, value: unknown): void {
  if (typeof value === 'string' && TABLE_NAME.test(value)) return;
  throw new InvalidConfigurationError(
    option,
    value,
    'a DynamoDB table name: 3-255 of A-Z a-z 0-9 _ . -',
  );
}

function validateOutboxOptions(outbox: unknown, inboxTableName: string): void {
  checkOptionsObject(
    outbox,
    ['tableName', 'retentionSeconds', 'pipeDestination'],
    "{ tableName: 'outbox' }",
  );
  const pipe = outbox.pipeDestination;
  if (pipe !== undefined && !isSqsQueue(pipe)) {
    throw new InvalidConfigurationError(
      'outbox.pipeDestination',
      pipe,
      "an SQS queue URL (an EventBridge pipe's target)",
    );
  }
  checkTableName('outbox.tableName', outbox.tableName);
  if (outbox.tableName === inboxTableName) {
    throw new InvalidConfigurationError(
      'outbox.tableName',
      outbox.tableName,
      'a table of its own, not the inbox table (its stream feeds the relay)',
    );
  }
  const retention = outbox.retentionSeconds;
  const { min, max } = OUTBOX_RETENTION_RANGE;
  if (retention === undefined) return;
  if (
    !(Number.isInteger(retention) && (retention as number) >= min && (retention as number) <= max)
  ) {
    throw new InvalidConfigurationError(
      'outbox.retentionSeconds',
      retention,
      `an integer from ${min} to ${max}`,
    );
  }
}

function isSqsQueue(address: unknown): boolean {
  const kind = parseDestination(address)?.kind;
  return kind === DestinationKind.SqsQueue || kind === DestinationKind.SqsFifoQueue;
}

function isDocumentClient(client: unknown): client is DynamoDBDocumentClient {
  if (client instanceof DynamoDBDocumentClient) return true;
  const config = (client as { config?: { translateConfig?: unknown } } | undefined)?.config;
  return config?.translateConfig !== undefined;
}

/**
 * Refuses options a store cannot work with, naming what to change.
 *
 * @example
 * ```ts
 * validateStoreOptions({ tableName: 'x' }); // throws InvalidConfigurationError (3-255 characters)
 * ```
 */
export function validateStoreOptions(options: DynamoDBInboxStoreOptions): void {
  checkOptionsObject(options, STORE_OPTIONS, "{ tableName: 'inbox' }");
  checkTableName('tableName', options.tableName);
  if (options.outbox !== undefined) validateOutboxOptions(options.outbox, options.tableName);
  const client = options.client as { send?: unknown } | undefined;
  if (client !== undefined && typeof client?.send !== 'function') {
    throw new InvalidConfigurationError(
      'client',
      options.client,
      'a DynamoDBClient or DynamoDBDocumentClient',
    );
  }
  if (client !== undefined && options.clientConfig !== undefined) {
    throw new InvalidConfigurationError(
      'clientConfig',
      options.clientConfig,
      'to be left out when a client is given (configure that client instead)',
    );
  }
}
