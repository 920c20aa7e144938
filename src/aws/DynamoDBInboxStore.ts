import {
  type CancellationReason,
  DescribeTableCommand,
  DynamoDBClient,
  type DynamoDBClientConfig,
  type KeySchemaElement,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { type NativeAttributeValue, unmarshall } from '@aws-sdk/util-dynamodb';
import { InboxAttribute, InboxStatus, TransactionLimit, TransientReason } from '../constants.js';
import { checkOptionsObject } from '../core/checkOptionsObject.js';
import type { CommitRequest, CommitResult, InboxStore } from '../core/InboxStore.js';
import type { InboxEntry } from '../core/inboxEntry.js';
import {
  BusinessConditionFailedError,
  InboxError,
  InboxTableSchemaError,
  InvalidConfigurationError,
  TransactionLimitError,
  TransientStoreError,
} from '../errors.js';
import { checkTransaction, describeOperation, locate } from './checkTransaction.js';
import {
  DynamoDBException,
  isException,
  isKeySchemaMismatch,
  transientReasonOf,
  translate,
} from './dynamoDBErrors.js';

/**
 * Options of {@link DynamoDBInboxStore}.
 *
 * @example
 * ```ts
 * const options: DynamoDBInboxStoreOptions = { tableName: 'inbox', clientConfig: { maxAttempts: 5 } };
 * ```
 */
export interface DynamoDBInboxStoreOptions {
  /** The inbox table: partition key `pk` (string), TTL on `expiresAt`. */
  readonly tableName: string;
  /** A client to use; a plain `DynamoDBClient` is wrapped in a document client. */
  readonly client?: DynamoDBDocumentClient | DynamoDBClient;
  /** Configuration of the client built lazily when `client` is not given. */
  readonly clientConfig?: DynamoDBClientConfig;
}

const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;
// The SDK waits forever on a stalled socket by default; a bounded wait turns it into a
// retryable TimeoutError. A commit whose response was lost is then seen as its own duplicate.
const DEFAULT_REQUEST_HANDLER = {
  connectionTimeout: 3_000,
  requestTimeout: 10_000,
  throwOnRequestTimeout: true,
};
/** The SDK's own pool size, kept as the floor. */
const DEFAULT_MAX_SOCKETS = 50;
// Absent, or present but expired and not yet swept by TTL: both let the entry be (re)written.
const ENTRY_IS_ABSENT = 'attribute_not_exists(#pk)';
const ENTRY_HAS_EXPIRED = '#expiresAt < :nowEpochSeconds';

/**
 * The DynamoDB persistence of the inbox: the only module that talks to DynamoDB. It commits a
 * message's business operations together with its inbox entry in one `TransactWriteItems`,
 * the entry's Put first and conditioned on the entry being absent or expired, and translates
 * DynamoDB's answers into inbox results and errors.
 *
 * @example
 * ```ts
 * import { DynamoDBInboxStore } from 'sqs-inbox';
 * const store = new DynamoDBInboxStore({ tableName: process.env.INBOX_TABLE_NAME ?? 'inbox' });
 * ```
 */
export class DynamoDBInboxStore implements InboxStore {
  readonly tableName: string;
  readonly #options: DynamoDBInboxStoreOptions;
  #client: DynamoDBDocumentClient | undefined;
  readonly #keySchemas = new Map<string, Promise<readonly string[]>>();
  #concurrency = 0;

  constructor(options: DynamoDBInboxStoreOptions) {
    validateStoreOptions(options);
    this.tableName = options.tableName;
    this.#options = options;
  }

  /** The document client, built on first use so that importing creates no client. */
  get client(): DynamoDBDocumentClient {
    this.#client ??= toDocumentClient(this.#options, this.#concurrency);
    return this.#client;
  }

  /**
   * Sizes the connection pool of the client this store builds (none is built yet) to the
   * largest concurrency of the processors using it, at least the SDK's 50: at `concurrency:
   * 1000` a 50-socket pool makes records wait for sockets until they time out.
   */
  expectConcurrency(records: number): void {
    this.#concurrency = Math.max(this.#concurrency, records);
  }

  async find(pk: string): Promise<InboxEntry | undefined> {
    const { Item } = await this.#call(() =>
      this.client
        .send(
          new GetCommand({
            TableName: this.tableName,
            Key: { [InboxAttribute.PartitionKey]: pk },
            ConsistentRead: true,
          }),
        )
        .catch((error: unknown) => {
          throw isKeySchemaMismatch(error)
            ? new InboxTableSchemaError(this.tableName, error)
            : error;
        }),
    );
    return Item === undefined ? undefined : toEntry(Item, this.tableName);
  }

  /**
   * Checks the transaction against DynamoDB's rules (sizes, one operation per item), then
   * commits the entry and the operations in one `TransactWriteItems`.
   */
  async commit(request: CommitRequest): Promise<CommitResult> {
    await checkTransaction(request.operations, request.entry, this.tableName, (tableName) =>
      this.#keyAttributeNames(tableName),
    );
    const command = new TransactWriteCommand({
      TransactItems: [this.#entryPut(request), ...request.operations],
    });
    try {
      await this.client.send(command);
      return { committed: true };
    } catch (error) {
      // A key that fits no schema may be the inbox table's fault (a deploy mistake): probing it
      // with a read throws InboxTableSchemaError if so; otherwise it is the handler's operation.
      if (isKeySchemaMismatch(error)) await this.find(request.entry.pk);
      if (!isException(error, DynamoDBException.TransactionCanceled)) throw translate(error);
      const cancelled = error as Error & { CancellationReasons?: CancellationReason[] };
      return this.#cancelled(cancelled, cancelled.CancellationReasons ?? [], request);
    }
  }

  /** The key attribute names of a table (partition key first), looked up once per table. */
  #keyAttributeNames(tableName: string): Promise<readonly string[]> {
    let names = this.#keySchemas.get(tableName);
    if (names === undefined) {
      names = this.#describeKey(tableName);
      this.#keySchemas.set(tableName, names);
      names.catch(() => this.#keySchemas.delete(tableName));
    }
    return names;
  }

  #entryPut(request: CommitRequest) {
    return {
      Put: {
        TableName: this.tableName,
        Item: request.entry as unknown as Record<string, NativeAttributeValue>,
        ConditionExpression: `${ENTRY_IS_ABSENT} OR ${ENTRY_HAS_EXPIRED}`,
        ExpressionAttributeNames: {
          '#pk': InboxAttribute.PartitionKey,
          '#expiresAt': InboxAttribute.ExpiresAt,
        },
        ExpressionAttributeValues: { ':nowEpochSeconds': request.nowEpochSeconds },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
      },
    };
  }

  async #cancelled(
    error: Error,
    reasons: readonly CancellationReason[],
    request: CommitRequest,
  ): Promise<CommitResult> {
    const [entryReason, ...operationReasons] = reasons;
    if (entryReason?.Code === 'ConditionalCheckFailed') {
      const existing = entryReason.Item
        ? toEntry(unmarshall(entryReason.Item), this.tableName)
        : await this.find(request.entry.pk);
      if (existing !== undefined) return { committed: false, existing };
      // The entry vanished between the failed condition and the read: let the caller retry.
      throw new TransientStoreError(TransientReason.TransactionConflict, error);
    }
    const transient = transientReasonOf(reasons);
    if (transient !== undefined) throw new TransientStoreError(transient, error);
    const failedIndex = operationReasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
    const operation = request.operations[failedIndex];
    if (operation !== undefined) {
      throw new BusinessConditionFailedError(locate(operation, failedIndex), error);
    }
    throw rejectedTransaction(error, reasons, request);
  }

  async #describeKey(tableName: string): Promise<readonly string[]> {
    const { Table } = await this.#call(() =>
      this.client.send(new DescribeTableCommand({ TableName: tableName })),
    );
    const rank = (element: KeySchemaElement) => (element.KeyType === 'HASH' ? 0 : 1);
    const ordered = [...(Table?.KeySchema ?? [])].sort((a, b) => rank(a) - rank(b));
    return ordered.map((element) => element.AttributeName ?? '');
  }

  async #call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw translate(error);
    }
  }
}

/** A cancellation no retry fixes (a ValidationError on an item, say), naming each failing operation. */
function rejectedTransaction(
  error: Error,
  reasons: readonly CancellationReason[],
  request: CommitRequest,
): TransactionLimitError {
  const failures = reasons.flatMap((reason, index) => {
    if (reason.Code === undefined || reason.Code === 'None') return [];
    const operation = request.operations[index - 1];
    const where = operation ? describeOperation(locate(operation, index - 1)) : 'the inbox entry';
    return [`${where}: ${reason.Code}${reason.Message ? ` (${reason.Message})` : ''}`];
  });
  const detail = failures.length > 0 ? failures.join('; ') : error.message;
  return new TransactionLimitError(
    TransactionLimit.InvalidOperation,
    `DynamoDB cancelled the transaction: ${detail}.`,
    detail,
    'a transaction DynamoDB accepts',
    error,
  );
}

function isDocumentClient(client: unknown): client is DynamoDBDocumentClient {
  if (client instanceof DynamoDBDocumentClient) return true;
  const config = (client as { config?: { translateConfig?: unknown } } | undefined)?.config;
  return config?.translateConfig !== undefined;
}

function toDocumentClient(
  options: DynamoDBInboxStoreOptions,
  concurrency: number,
): DynamoDBDocumentClient {
  if (isDocumentClient(options.client)) return options.client;
  const pool = { maxSockets: Math.max(DEFAULT_MAX_SOCKETS, concurrency) };
  const requestHandler = { ...DEFAULT_REQUEST_HANDLER, httpAgent: pool, httpsAgent: pool };
  const base = options.client ?? new DynamoDBClient({ requestHandler, ...options.clientConfig });
  return DynamoDBDocumentClient.from(base, { marshallOptions: { removeUndefinedValues: true } });
}

function toEntry(item: Record<string, unknown>, tableName: string): InboxEntry {
  const { pk, consumer, key, messageId, status, payloadHash, processedAt } = item;
  // A caller's document client may unmarshall numbers as NumberValue or bigint (wrapNumbers).
  const expiresAt = Number(
    typeof item.expiresAt === 'object' && item.expiresAt !== null && 'value' in item.expiresAt
      ? item.expiresAt.value
      : item.expiresAt,
  );
  if (
    typeof pk !== 'string' ||
    typeof payloadHash !== 'string' ||
    !Number.isFinite(expiresAt) ||
    status !== InboxStatus.Completed
  ) {
    throw new InboxError(
      `An item in ${tableName} is not an sqs-inbox entry (needs string pk and ` +
        `payloadHash, numeric expiresAt, status ${InboxStatus.Completed}); give the inbox its own table.`,
    );
  }
  return {
    pk,
    consumer: String(consumer),
    key: String(key),
    messageId: String(messageId),
    status,
    payloadHash,
    processedAt: String(processedAt),
    expiresAt,
  };
}

const STORE_OPTIONS = ['tableName', 'client', 'clientConfig'];

function validateStoreOptions(options: DynamoDBInboxStoreOptions): void {
  checkOptionsObject(options, STORE_OPTIONS, "{ tableName: 'inbox' }");
  if (typeof options.tableName !== 'string' || !TABLE_NAME.test(options.tableName)) {
    throw new InvalidConfigurationError(
      'tableName',
      options.tableName,
      'a DynamoDB table name: 3-255 of A-Z a-z 0-9 _ . -',
    );
  }
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
