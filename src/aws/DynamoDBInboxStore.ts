import {
  type CancellationReason,
  DescribeTableCommand,
  type KeySchemaElement,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { type NativeAttributeValue, unmarshall } from '@aws-sdk/util-dynamodb';
import {
  DEFAULT_OUTBOX_RETENTION_SECONDS,
  InboxAttribute,
  InboxStatus,
  SDK_DEFAULT_MAX_SOCKETS,
  TransientReason,
} from '../constants.js';
import type {
  ClaimRequest,
  ClaimResult,
  CommitRequest,
  CommitResult,
  InboxStore,
  JournaledStep,
  LeaseToken,
} from '../core/InboxStore.js';
import { type InboxEntry, isCommitted, toEpochSeconds } from '../core/inboxEntry.js';
import type { TransactItem } from '../core/TransactionBuilder.js';
import {
  BusinessConditionFailedError,
  InboxTableSchemaError,
  InvalidConfigurationError,
  LeaseLostError,
  LeaseOperation,
  TransientStoreError,
} from '../errors.js';
import { checkTransaction, locate, rejectedTransaction } from './checkTransaction.js';
import {
  type DynamoDBInboxStoreOptions,
  documentClientFor,
  validateStoreOptions,
} from './documentClientFor.js';
import {
  DynamoDBException,
  isException,
  isKeySchemaMismatch,
  transientReasonOf,
  translate,
} from './dynamoDBErrors.js';
import { ENTRY_CONDITION, ENTRY_UPDATE, entryUpdate, entryWrite } from './entryWrites.js';
import { claimedFrom, leaseOf, toEntry } from './inboxItem.js';
import { type OutboxTable, outboxWrites } from './outboxWrites.js';

export type { DynamoDBInboxStoreOptions } from './documentClientFor.js';

/** The most keys one `BatchGetItem` reads. */
const BATCH_GET_KEYS = 100;

/**
 * The DynamoDB persistence of the inbox: the only module that talks to DynamoDB. It commits a
 * message's business operations together with its inbox entry in one `TransactWriteItems`,
 * and writes the lease and journal of handlers with steps, each write but the claim fenced by
 * the attempt's owner token and counter. It translates DynamoDB's answers into inbox results
 * and errors.
 *
 * @example
 * ```ts
 * import { DynamoDBInboxStore } from 'sqs-inbox';
 * const store = new DynamoDBInboxStore({ tableName: process.env.INBOX_TABLE_NAME ?? 'inbox' });
 * ```
 */
export class DynamoDBInboxStore implements InboxStore {
  readonly tableName: string;
  readonly outbox: OutboxTable | undefined;
  readonly #options: DynamoDBInboxStoreOptions;
  #client: DynamoDBDocumentClient | undefined;
  readonly #keySchemas = new Map<string, Promise<readonly string[]>>();
  #concurrency = 0;

  constructor(options: DynamoDBInboxStoreOptions) {
    validateStoreOptions(options);
    this.tableName = options.tableName;
    this.#options = options;
    const { outbox } = options;
    this.outbox = outbox && {
      tableName: outbox.tableName,
      retentionSeconds: outbox.retentionSeconds ?? DEFAULT_OUTBOX_RETENTION_SECONDS,
      ...(outbox.pipeDestination === undefined ? {} : { pipeDestination: outbox.pipeDestination }),
    };
  }

  /** The outbox table `tx.publish` writes to, if the store has one. */
  get outboxTableName(): string | undefined {
    return this.outbox?.tableName;
  }

  /** The document client, built on first use so that importing creates no client. */
  get client(): DynamoDBDocumentClient {
    this.#client ??= documentClientFor(this.#options, this.#concurrency);
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

  /**
   * A client of the caller's keeps its own pool, assumed the SDK's default of 50 sockets; one
   * the store builds is sized to the processors' concurrency, so it sets no limit.
   */
  socketLimit(): number | undefined {
    return this.#options.client === undefined ? undefined : SDK_DEFAULT_MAX_SOCKETS;
  }

  /**
   * Reads many entries with consistent `BatchGetItem`s of up to 100 keys, sent at once. Keys
   * DynamoDB left unprocessed are left out, as absent ones are.
   */
  async findMany(pks: readonly string[]): Promise<ReadonlyMap<string, InboxEntry>> {
    const found = new Map<string, InboxEntry>();
    const distinct = [...new Set(pks)];
    const chunks: string[][] = [];
    for (let at = 0; at < distinct.length; at += BATCH_GET_KEYS) {
      chunks.push(distinct.slice(at, at + BATCH_GET_KEYS));
    }
    await Promise.all(
      chunks.map(async (chunk) => {
        const { Responses } = await this.#call(() =>
          this.client
            .send(
              new BatchGetCommand({
                RequestItems: {
                  [this.tableName]: {
                    Keys: chunk.map((pk) => ({ [InboxAttribute.PartitionKey]: pk })),
                    ConsistentRead: true,
                  },
                },
              }),
            )
            .catch((error: unknown) => {
              throw this.#schemaErrorOr(error);
            }),
        );
        for (const item of Responses?.[this.tableName] ?? []) {
          const entry = toEntry(item, this.tableName);
          found.set(entry.pk, entry);
        }
      }),
    );
    return found;
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
          throw this.#schemaErrorOr(error);
        }),
    );
    return Item === undefined ? undefined : toEntry(Item, this.tableName);
  }

  /** A key that fits no schema of the inbox table is a deploy mistake: said as one. */
  #schemaErrorOr(error: unknown): unknown {
    return isKeySchemaMismatch(error) ? new InboxTableSchemaError(this.tableName, error) : error;
  }

  /**
   * Checks the transaction against DynamoDB's rules (sizes, one operation per item), then
   * commits the entry and the operations in one `TransactWriteItems`.
   */
  async commit(request: CommitRequest): Promise<CommitResult> {
    const outboxItems = this.#outboxWrites(request);
    const tables = { inbox: this.tableName, outbox: this.outbox?.tableName };
    await checkTransaction(request, tables, outboxItems, (tableName) =>
      this.#keyAttributeNames(tableName),
    );
    const command = new TransactWriteCommand({
      TransactItems: [entryWrite(this.tableName, request), ...request.operations, ...outboxItems],
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
      const reasons = cancelled.CancellationReasons ?? [];
      return this.#cancelled(cancelled, reasons, request, [...request.operations, ...outboxItems]);
    }
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    const { absent, resumable, expired } = ENTRY_CONDITION;
    const first = await this.#claimWith(ENTRY_UPDATE.claim, `${absent} OR ${resumable}`, request);
    if (first.claimed || first.existing.expiresAt >= toEpochSeconds(request.nowMillis)) {
      return first;
    }
    // Past its TTL, not yet swept: the key is free again, and its journal belongs to the past.
    return this.#claimWith(ENTRY_UPDATE.claimAfresh, expired, request);
  }

  async journal(request: {
    pk: string;
    lease: LeaseToken;
    stepName: string;
    step: JournaledStep;
  }): Promise<void> {
    await this.#fenced(LeaseOperation.Journal, request, ENTRY_UPDATE.journal, {
      ':step': request.step,
    });
  }

  async heartbeat(request: {
    pk: string;
    lease: LeaseToken;
    leaseUntilMillis: number;
    expiresAt: number;
  }): Promise<void> {
    await this.#fenced(LeaseOperation.Heartbeat, request, ENTRY_UPDATE.heartbeat, {
      ':leaseUntil': request.leaseUntilMillis,
      ':expiresAt': request.expiresAt,
    });
  }

  async release(request: {
    pk: string;
    lease: LeaseToken;
    lastError: { name: string; at: string };
  }): Promise<void> {
    await this.#fenced(LeaseOperation.Release, request, ENTRY_UPDATE.release, {
      ':failed': InboxStatus.Failed,
      ':lastError': request.lastError,
    });
  }

  /** One claim: the update under its condition; refused, the entry that refused it. */
  async #claimWith(update: string, condition: string, request: ClaimRequest): Promise<ClaimResult> {
    const { entry } = request;
    const bodyHash =
      request.payloadHashes.find((hash) => hash !== entry.payloadHash) ?? entry.payloadHash;
    const input = entryUpdate(this.tableName, entry.pk, update, condition, {
      ':inProgress': InboxStatus.InProgress,
      ':completed': InboxStatus.Completed,
      ':owner': request.owner,
      ':leaseUntil': request.leaseUntilMillis,
      ':consumer': entry.consumer,
      ':key': entry.key,
      ':messageId': entry.messageId,
      ':payloadHash': entry.payloadHash,
      ':bodyHash': bodyHash,
      ':expiresAt': entry.expiresAt,
      ':noSteps': {},
      ':one': 1,
      ':nowEpochSeconds': toEpochSeconds(request.nowMillis),
      ':nowMillis': request.nowMillis,
    });
    try {
      const { Attributes = {} } = await this.client.send(
        new UpdateCommand({ ...input, ReturnValues: 'ALL_NEW' }),
      );
      return claimedFrom(Attributes);
    } catch (error) {
      const item = await this.#refusedItem(error, entry.pk);
      // A claim applied whose answer was lost, retried: the lease found is this attempt's own.
      if (leaseOf(item)?.owner === request.owner) return claimedFrom(item);
      return { claimed: false, existing: toEntry(item, this.tableName) };
    }
  }

  /** A write of the attempt that holds the lease, refused with `LeaseLostError` once it does not. */
  async #fenced(
    operation: LeaseOperation,
    request: { pk: string; lease: LeaseToken; stepName?: string },
    update: string,
    values: Record<string, NativeAttributeValue>,
  ): Promise<void> {
    const input = entryUpdate(this.tableName, request.pk, update, ENTRY_CONDITION.fenced, {
      ...values,
      ':owner': request.lease.owner,
      ':epoch': request.lease.epoch,
    });
    const step: Record<string, string> =
      request.stepName === undefined ? {} : { '#step': request.stepName };
    try {
      await this.client.send(
        new UpdateCommand({
          ...input,
          ExpressionAttributeNames: { ...input.ExpressionAttributeNames, ...step },
        }),
      );
    } catch (error) {
      if (!isException(error, DynamoDBException.ConditionalCheckFailed)) throw translate(error);
      throw new LeaseLostError(operation, request.stepName, error);
    }
  }

  /** The item a refused condition found (read again if DynamoDB did not return it). */
  async #refusedItem(error: unknown, pk: string): Promise<Record<string, unknown>> {
    if (!isException(error, DynamoDBException.ConditionalCheckFailed)) throw translate(error);
    const { Item } = error as { Item?: Record<string, never> };
    if (Item !== undefined) return unmarshall(Item);
    const { Item: read } = await this.#call(() =>
      this.client.send(
        new GetCommand({
          TableName: this.tableName,
          Key: { [InboxAttribute.PartitionKey]: pk },
          ConsistentRead: true,
        }),
      ),
    );
    // Gone between the refusal and the read: a conflict, which the caller retries.
    if (read === undefined) {
      throw new TransientStoreError(TransientReason.TransactionConflict, error);
    }
    return read;
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

  /** The outbox items of the messages the handler published; none without any. */
  #outboxWrites(request: CommitRequest): TransactItem[] {
    const outgoing = request.outgoing ?? [];
    if (outgoing.length === 0) return [];
    if (this.outbox === undefined) {
      throw new InvalidConfigurationError('outbox', undefined, 'an outbox table to publish to');
    }
    const nowMillis = request.nowMillis ?? request.nowEpochSeconds * 1000;
    return outboxWrites(this.outbox, outgoing, request.entry, nowMillis);
  }

  async #cancelled(
    error: Error,
    reasons: readonly CancellationReason[],
    request: CommitRequest,
    written: readonly TransactItem[],
  ): Promise<CommitResult> {
    const [entryReason, ...operationReasons] = reasons;
    if (entryReason?.Code === 'ConditionalCheckFailed') {
      const existing = entryReason.Item
        ? toEntry(unmarshall(entryReason.Item), this.tableName)
        : await this.find(request.entry.pk);
      if (
        request.lease !== undefined &&
        !(existing && isCommitted(existing, request.nowEpochSeconds))
      ) {
        // Not completed by this attempt's own earlier try: the lease is someone else's now.
        throw new LeaseLostError(LeaseOperation.Commit, undefined, error);
      }
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
    throw rejectedTransaction(error, reasons, written);
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
