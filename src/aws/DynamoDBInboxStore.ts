import type { CancellationReason } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  DEFAULT_OUTBOX_RETENTION_SECONDS,
  InboxAttribute,
  SDK_DEFAULT_MAX_SOCKETS,
} from '../constants/values.js';
import type {
  ClaimRequest,
  ClaimResult,
  CommitRequest,
  CommitResult,
  FailureRecord,
  InboxStore,
  MemberVerdict,
  PreparedCommit,
} from '../core/InboxStore.js';
import type { InboxEntry } from '../core/inboxEntry.js';
import type { TransactItem } from '../core/TransactionBuilder.js';
import { FormatVersionError, InboxTableSchemaError, InvalidConfigurationError } from '../errors.js';
import { type CheckedTransaction, checkTransaction } from './checkTransaction.js';
import {
  type DynamoDBInboxStoreOptions,
  documentClientFor,
  validateStoreOptions,
} from './documentClientFor.js';
import {
  DynamoDBException,
  isException,
  isKeySchemaMismatch,
  translate,
} from './dynamoDBErrors.js';
import { entryWrite } from './entryWrites.js';
import { writeFailureRecord } from './failureRecordWrite.js';
import { InboxLeases } from './InboxLeases.js';
import { toEntry } from './inboxItem.js';
import { type JudgingContext, judgeCommit, judgeMembers } from './judgeCancellation.js';
import { KeySchemas } from './KeySchemas.js';
import { mergeableItemIds } from './numericAdds.js';
import { type OutboxTable, outboxWrites } from './outboxWrites.js';
import { buildSharedTransaction } from './sharedTransaction.js';

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
 * @public
 */
export class DynamoDBInboxStore {
  /** The inbox table's name. */
  readonly tableName: string;
  /** @internal Part of the store port the engine uses (`core/InboxStore.ts`). */
  readonly outbox: OutboxTable | undefined;
  readonly #options: DynamoDBInboxStoreOptions;
  #client: DynamoDBDocumentClient | undefined;
  readonly #keySchemas = new KeySchemas(() => this.client);
  #concurrency = 0;
  /** What judging a cancelled commit needs: the entry, read again when DynamoDB did not return it. */
  readonly #judging: JudgingContext;
  readonly #leases: InboxLeases;

  constructor(options: DynamoDBInboxStoreOptions) {
    validateStoreOptions(options);
    this.tableName = options.tableName;
    this.#judging = { tableName: options.tableName, find: (pk) => this.find(pk) };
    this.#leases = new InboxLeases(
      options.tableName,
      () => this.client,
      (pk) => this.#readItem(pk),
    );
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
   * @internal
   */
  expectConcurrency(records: number): void {
    this.#concurrency = Math.max(this.#concurrency, records);
  }

  /**
   * A client of the caller's keeps its own pool, assumed the SDK's default of 50 sockets; one
   * the store builds is sized to the processors' concurrency, so it sets no limit.
   * @internal
   */
  socketLimit(): number | undefined {
    return this.#options.client === undefined ? undefined : SDK_DEFAULT_MAX_SOCKETS;
  }

  /**
   * Reads many entries with consistent `BatchGetItem`s of up to 100 keys, sent at once. Keys
   * DynamoDB left unprocessed are left out, as absent ones are, and so are entries of a newer
   * format version.
   * @internal
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
          const entry = this.#readableEntry(item);
          if (entry !== undefined) found.set(entry.pk, entry);
        }
      }),
    );
    return found;
  }

  /**
   * An item as an entry, left out when it is of a newer format version: the batch's read is a
   * hint, and the commit's condition and its judging refuse that entry for its record alone.
   */
  #readableEntry(item: Record<string, unknown>): InboxEntry | undefined {
    try {
      return toEntry(item, this.tableName);
    } catch (error) {
      if (error instanceof FormatVersionError) return undefined;
      throw error;
    }
  }

  /** @internal Part of the store port the engine uses (`core/InboxStore.ts`). */
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
   * @internal
   */
  async commit(request: CommitRequest): Promise<CommitResult> {
    const outboxItems = this.#outboxWrites(request);
    await this.#check(request, outboxItems);
    return this.#commitItems(request, this.#items(request, outboxItems));
  }

  /**
   * Commits alone a commit `prepareCommit` checked: its items as prepared, so that nothing is
   * built, sized or identified twice on the way from the handler to DynamoDB.
   * @internal
   */
  commitPrepared(prepared: PreparedCommit): Promise<CommitResult> {
    return this.#commitItems(prepared.request, prepared.items);
  }

  /** What a commit writes: its inbox entry first, then the handler's operations and outbox items. */
  #items(request: CommitRequest, outboxItems: readonly TransactItem[]): TransactItem[] {
    return [entryWrite(this.tableName, request), ...request.operations, ...outboxItems];
  }

  /** One `TransactWriteItems` of the entry (first) and the other items; a cancellation judged. */
  async #commitItems(
    request: CommitRequest,
    items: readonly TransactItem[],
  ): Promise<CommitResult> {
    try {
      await this.client.send(new TransactWriteCommand({ TransactItems: [...items] }));
      return { committed: true };
    } catch (error) {
      const cancelled = await this.#cancellation(error, request.entry.pk);
      const reasons = cancelled.CancellationReasons ?? [];
      return judgeCommit(cancelled, reasons, request, items.slice(1), this.#judging);
    }
  }

  /**
   * Checks a commit as `commit` does, with the identity of every item it writes and which of
   * them another message's update may be merged with (an unconditional `ADD` of integers).
   * @internal
   */
  async prepareCommit(request: CommitRequest): Promise<PreparedCommit> {
    const outboxItems = this.#outboxWrites(request);
    const { bytes, itemIds } = await this.#identify(request, outboxItems);
    const items = this.#items(request, outboxItems);
    return { request, items, itemIds, bytes, mergeableIds: mergeableItemIds(items, itemIds) };
  }

  /**
   * Checks a commit and identifies every item it writes. A Put into a table whose key schema
   * cannot be read (refused, or failing for now) gets an identity of its own: two messages'
   * Puts of one item may then share a transaction, which DynamoDB refuses as a whole, and the
   * coalescer then commits each alone.
   */
  #identify(request: CommitRequest, outboxItems: readonly TransactItem[]) {
    const tables = { inbox: this.tableName, outbox: this.outbox?.tableName };
    const keyNames = (tableName: string) => this.#keySchemas.namesIfReadable(tableName);
    return checkTransaction(request, tables, outboxItems, keyNames, true);
  }

  /**
   * One `TransactWriteItems` for several messages, with a `ClientRequestToken`: sent again
   * with the same token within DynamoDB's ten minutes, it applies at most once (the same
   * members make the same items). An item several members update mergeably is written once, as
   * one update adding their amounts: one write, and one stream record, for all of them.
   * Cancelled, each member is judged by its own slice of `CancellationReasons` as `commit`
   * would judge it alone, a merged update's reason in each sharing member's slice; a member
   * whose reasons are all `None` is innocent.
   * @internal
   */
  async commitTogether(
    members: readonly PreparedCommit[],
    clientRequestToken: string,
  ): Promise<MemberVerdict[]> {
    const { items, layout } = buildSharedTransaction(members);
    const command = new TransactWriteCommand({
      TransactItems: items,
      ClientRequestToken: clientRequestToken,
    });
    try {
      await this.client.send(command);
      return members.map(() => ({ result: { committed: true } }));
    } catch (error) {
      const cancelled = await this.#cancellation(error, members[0]?.request.entry.pk);
      return judgeMembers(cancelled, members, this.#judging, layout);
    }
  }

  /** @internal Part of the store port the engine uses (`core/InboxStore.ts`). */
  claim(request: ClaimRequest): Promise<ClaimResult> {
    return this.#leases.claim(request);
  }

  /** @internal Part of the store port the engine uses (`core/InboxStore.ts`). */
  journal(request: Parameters<InboxStore['journal']>[0]): Promise<void> {
    return this.#leases.journal(request);
  }

  /** @internal Part of the store port the engine uses (`core/InboxStore.ts`). */
  heartbeat(request: Parameters<InboxStore['heartbeat']>[0]): Promise<void> {
    return this.#leases.heartbeat(request);
  }

  /** @internal Part of the store port the engine uses (`core/InboxStore.ts`). */
  release(request: Parameters<InboxStore['release']>[0]): Promise<void> {
    return this.#leases.release(request);
  }

  /** @internal Part of the store port the engine uses (`core/InboxStore.ts`). */
  recordFailure(request: FailureRecord): Promise<{ readonly recorded: boolean }> {
    return writeFailureRecord(this.client, this.tableName, request);
  }

  /** An inbox item as stored (consistent read), for a lease write that a condition refused. */
  async #readItem(pk: string): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.#call(() =>
      this.client.send(
        new GetCommand({
          TableName: this.tableName,
          Key: { [InboxAttribute.PartitionKey]: pk },
          ConsistentRead: true,
        }),
      ),
    );
    return Item;
  }

  /** Checks a commit before it is sent; a Put's key is read only where two share a table. */
  async #check(
    request: CommitRequest,
    outboxItems: readonly TransactItem[],
  ): Promise<CheckedTransaction> {
    const tables = { inbox: this.tableName, outbox: this.outbox?.tableName };
    const keyNames = (tableName: string) => this.#keySchemas.names(tableName);
    return checkTransaction(request, tables, outboxItems, keyNames);
  }

  /**
   * A failed `TransactWriteItems` as a cancellation, or thrown as the inbox error it is. A key
   * that fits no schema may be the inbox table's fault (a deploy mistake): probing it with a
   * read throws `InboxTableSchemaError` if so; otherwise it is the handler's operation.
   */
  async #cancellation(
    error: unknown,
    pk: string | undefined,
  ): Promise<Error & { CancellationReasons?: CancellationReason[] }> {
    if (isKeySchemaMismatch(error) && pk !== undefined) await this.find(pk);
    if (!isException(error, DynamoDBException.TransactionCanceled)) throw translate(error);
    return error as Error & { CancellationReasons?: CancellationReason[] };
  }

  /** The outbox items of the messages the handler published; none without any. */
  #outboxWrites(request: CommitRequest): TransactItem[] {
    const outgoing = request.outgoing ?? [];
    if (outgoing.length === 0) return [];
    if (this.outbox === undefined) {
      throw new InvalidConfigurationError('outbox', undefined, 'an outbox table to publish to');
    }
    const nowMillis = request.nowMillis ?? request.nowEpochSeconds * 1000;
    return outboxWrites(this.outbox, outgoing, request.entry, nowMillis, request.traceparent);
  }

  async #call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw translate(error);
    }
  }
}
