import {
  type CancellationReason,
  DescribeTableCommand,
  type KeySchemaElement,
} from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { type NativeAttributeValue, unmarshall } from '@aws-sdk/util-dynamodb';
import { InboxAttribute, InboxStatus, TransactionLimit, TransientReason } from '../constants.js';
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
import {
  BusinessConditionFailedError,
  InboxTableSchemaError,
  LeaseLostError,
  LeaseOperation,
  TransactionLimitError,
  TransientStoreError,
} from '../errors.js';
import { checkTransaction, describeOperation, locate } from './checkTransaction.js';
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
import { ENTRY_CONDITION, ENTRY_UPDATE } from './entryExpressions.js';
import { leaseOf, namesIn, toEntry, toJournal } from './inboxItem.js';

export type { DynamoDBInboxStoreOptions } from './documentClientFor.js';

const {
  absent: ENTRY_IS_ABSENT,
  expired: ENTRY_HAS_EXPIRED,
  free: ENTRY_IS_FREE,
} = ENTRY_CONDITION;

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
      TransactItems: [this.#entryWrite(request), ...request.operations],
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
    const input = this.#input(entry.pk, update, condition, {
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
    const input = this.#input(request.pk, update, ENTRY_CONDITION.fenced, {
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

  /** An UpdateItem's input on an entry, with exactly the names and values its expressions use. */
  #input(
    pk: string,
    update: string,
    condition: string,
    values: Record<string, NativeAttributeValue>,
  ): EntryUpdate {
    const text = `${update} ${condition}`;
    return {
      TableName: this.tableName,
      Key: { [InboxAttribute.PartitionKey]: pk },
      UpdateExpression: update,
      ConditionExpression: condition,
      ExpressionAttributeNames: namesIn([text]),
      ExpressionAttributeValues: Object.fromEntries(
        Object.entries(values).filter(([placeholder]) =>
          new RegExp(`${placeholder}\\b`).test(text),
        ),
      ),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    };
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

  /**
   * The entry's write in the commit: without a lease, a Put on an absent, expired or free
   * entry; with one, an Update that completes the entry the attempt owns.
   */
  #entryWrite(request: CommitRequest) {
    if (request.lease !== undefined) return { Update: this.#completion(request, request.lease) };
    return {
      Put: {
        TableName: this.tableName,
        Item: request.entry as unknown as Record<string, NativeAttributeValue>,
        ConditionExpression: `${ENTRY_IS_ABSENT} OR ${ENTRY_HAS_EXPIRED} OR ${ENTRY_IS_FREE}`,
        ExpressionAttributeNames: namesIn([ENTRY_IS_ABSENT, ENTRY_HAS_EXPIRED, ENTRY_IS_FREE]),
        ExpressionAttributeValues: {
          ':nowEpochSeconds': request.nowEpochSeconds,
          ':completed': InboxStatus.Completed,
          ':nowMillis': request.nowEpochSeconds * 1000,
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
      },
    };
  }

  #completion(request: CommitRequest, lease: LeaseToken) {
    const { entry } = request;
    return this.#input(entry.pk, ENTRY_UPDATE.commit, ENTRY_CONDITION.fenced, {
      ':completed': InboxStatus.Completed,
      ':messageId': entry.messageId,
      ':payloadHash': entry.payloadHash,
      ':processedAt': entry.processedAt,
      ':expiresAt': entry.expiresAt,
      ':owner': lease.owner,
      ':epoch': lease.epoch,
    });
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

/** An entry's UpdateItem, alone or inside the commit's transaction. */
interface EntryUpdate {
  readonly TableName: string;
  readonly Key: Record<string, NativeAttributeValue>;
  readonly UpdateExpression: string;
  readonly ConditionExpression: string;
  readonly ExpressionAttributeNames: Record<string, string>;
  readonly ExpressionAttributeValues: Record<string, NativeAttributeValue>;
  readonly ReturnValuesOnConditionCheckFailure: 'ALL_OLD';
}

/** The claim's answer from the entry it wrote (or found already written by this attempt). */
function claimedFrom(item: Record<string, unknown>): ClaimResult {
  const lease = leaseOf(item);
  if (lease === undefined)
    throw new TransientStoreError(TransientReason.TransactionConflict, undefined);
  return { claimed: true, lease, attempts: Number(item.attempts), journal: toJournal(item) };
}
