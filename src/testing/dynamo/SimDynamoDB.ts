import type {
  BatchGetItemInput,
  BatchGetItemOutput,
  CreateTableInput,
  CreateTableOutput,
  DeleteItemInput,
  DeleteItemOutput,
  DeleteTableInput,
  DeleteTableOutput,
  DescribeTableInput,
  DescribeTableOutput,
  DescribeTimeToLiveInput,
  DescribeTimeToLiveOutput,
  GetItemInput,
  GetItemOutput,
  ProvisionedThroughputExceededException,
  PutItemInput,
  PutItemOutput,
  QueryInput,
  QueryOutput,
  ScanInput,
  ScanOutput,
  ThrottlingException,
  TransactionCanceledException,
  TransactWriteItemsInput,
  TransactWriteItemsOutput,
  UpdateItemInput,
  UpdateItemOutput,
  UpdateTimeToLiveInput,
  UpdateTimeToLiveOutput,
} from '@aws-sdk/client-dynamodb';
import { type ChangeCause, ChangeLog, type ChangeRecord } from './ChangeLog.js';
import { ClientTokens } from './ClientTokens.js';
import type { Item } from './compareValues.js';
import type { Database } from './Database.js';
import {
  cancelledBy,
  type InjectedCancellation,
  injectedIndex,
  resourceInUse,
  resourceNotFound,
  throttled,
} from './dynamoExceptions.js';
import { type ConflictRecord, ItemHolds, type ServerTime } from './ItemHolds.js';
import { batchGetItem, deleteItem, getItem, putItem, updateItem } from './itemOperations.js';
import { queryItems } from './queryItems.js';
import { SimTable, tableNameOf } from './SimTable.js';
import { scanItems } from './scanItems.js';
import * as ttl from './timeToLive.js';
import { transactWriteItems } from './transactWriteItems.js';

export type { ChangeCause, ChangeRecord } from './ChangeLog.js';
export type { Item } from './compareValues.js';
export {
  cancelledBy,
  InjectedCancellation,
  isConflictAnswer,
  throttled,
} from './dynamoExceptions.js';
export type { ConflictRecord, ServerTime } from './ItemHolds.js';

/**
 * Options of {@link SimDynamoDB}.
 *
 * @example
 * ```ts
 * const dynamo = new SimDynamoDB({ now: () => kernel.nowMillis });
 * ```
 */
export interface SimDynamoDBOptions {
  /**
   * The time of a request that carries no `ServerTime` (milliseconds, on the scale of
   * `ServerTime.nowMillis`): what a `ClientRequestToken`'s ten minutes are counted in. Without
   * it, such a request has no time, and a token it applies never expires.
   */
  readonly now?: () => number;
}

/**
 * An in-process DynamoDB for deterministic simulations: the subset sqs-inbox and its
 * reference handlers use, taking and returning the low-level API's shapes (items in wire
 * form) and throwing the SDK's own exception classes with DynamoDB's wording. It never reads
 * a clock or a random source: time is passed in (`expiredItems`, the `ServerTime` a write may
 * carry, else the `now` option it is given), and every call applies at once, so a world decides
 * when each request reaches the server. A `ClientRequestToken` is honoured for ten minutes from
 * its transaction's completion, by that time. Reads are always consistent and never refused. A write given its `ServerTime` follows
 * DynamoDB's transaction-conflict rules (see `ItemHolds`): an applied `TransactWriteItems` holds
 * its items for its service time, and a write meeting a held item is refused
 * ({@link SimDynamoDB.transactionConflicts} counts them); without one, a write meets no holds.
 * Conflicts from writers outside the world are injected ({@link SimDynamoDB.injectedConflict}).
 *
 * @example
 * ```ts
 * const dynamo = new SimDynamoDB();
 * dynamo.createTable({ TableName: 'inbox', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }] });
 * dynamo.putItem({ TableName: 'inbox', Item: { pk: { S: 'ledger#evt-1' } } });
 * ```
 */
export class SimDynamoDB {
  readonly #tables = new Map<string, SimTable>();
  readonly #log = new ChangeLog();
  readonly #database: Database = {
    table: (nameOrArn) => this.#table(nameOrArn),
    write: (...change) => this.#write(...change),
    nextTransactionId: () => this.#log.nextTransactionId(),
    clientTokens: new ClientTokens(),
    requestMillis: (at) => at?.nowMillis ?? this.#now?.(),
    holds: new ItemHolds(),
    noteConflict: (conflict) => this.#conflicts.push(conflict),
  };
  readonly #conflicts: ConflictRecord[] = [];
  readonly #now: (() => number) | undefined;
  #injectedConflicts = 0;

  constructor(options: SimDynamoDBOptions = {}) {
    this.#now = options.now;
  }

  /**
   * Writes refused so far because a transaction in flight held one of their items (what
   * DynamoDB's `TransactionConflict` CloudWatch metric counts); injected conflicts are not.
   */
  get transactionConflicts(): number {
    return this.#conflicts.length;
  }

  /** Each write refused for a held item so far, oldest first, with who sent it and who held it. */
  get conflictLog(): readonly ConflictRecord[] {
    return this.#conflicts;
  }

  /** Injected conflicts built so far ({@link SimDynamoDB.injectedConflict}). */
  get injectedConflicts(): number {
    return this.#injectedConflicts;
  }

  /** Every applied item change so far, oldest first. */
  get changes(): readonly ChangeRecord[] {
    return this.#log.records;
  }

  /**
   * Creates a table (HASH and optional RANGE key of S, N or B), ACTIVE at once.
   *
   * @example
   * ```ts
   * dynamo.createTable({ TableName: 't', KeySchema, AttributeDefinitions })
   * ```
   */
  createTable(input: CreateTableInput): CreateTableOutput {
    const name = input.TableName ?? '';
    if (this.#tables.has(name)) throw resourceInUse(name);
    const table = SimTable.create(input);
    this.#tables.set(name, table);
    return { TableDescription: table.description };
  }

  /**
   * Deletes a table and its items (no change records: nothing was deleted item by item).
   *
   * @example
   * ```ts
   * dynamo.deleteTable({ TableName: 't' })
   * ```
   */
  deleteTable(input: DeleteTableInput): DeleteTableOutput {
    const table = this.#table(input.TableName);
    this.#tables.delete(table.name);
    return { TableDescription: { ...table.description, TableStatus: 'DELETING' } };
  }

  /**
   * Describes a table: name, ARN, key schema (HASH first), definitions, ACTIVE.
   *
   * @example
   * ```ts
   * dynamo.describeTable({ TableName: 't' }).Table?.KeySchema
   * ```
   */
  describeTable(input: DescribeTableInput): DescribeTableOutput {
    const name = input.TableName ?? '';
    const table = this.#tables.get(tableNameOf(name));
    if (table === undefined)
      throw resourceNotFound(`Requested resource not found: Table: ${name} not found`);
    return { Table: table.description };
  }

  /**
   * The names of the tables, in the order they were created.
   *
   * @example
   * ```ts
   * dynamo.tableNames() // => ['inbox', 'accounts']
   * ```
   */
  tableNames(): readonly string[] {
    return [...this.#tables.keys()];
  }

  /**
   * The key of an item of a table (its key attributes, in wire form).
   *
   * @example
   * ```ts
   * dynamo.keyOf('inbox', item) // => { pk: { S: 'ledger#evt-1' } }
   * ```
   */
  keyOf(tableName: string, item: Item): Item {
    return this.#table(tableName).keyOfItem(item).key;
  }

  /**
   * Every item of a table, in the order they were written (a test's view, not an
   * operation: no paging, no capacity).
   *
   * @example
   * ```ts
   * dynamo.tableItems('accounts').length
   * ```
   */
  tableItems(tableName: string): readonly Item[] {
    return [...this.#table(tableName).items.values()];
  }

  /**
   * Enables or disables TTL on an attribute; it applies at once.
   *
   * @example
   * ```ts
   * dynamo.updateTimeToLive({ TableName: 't', TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true } })
   * ```
   */
  updateTimeToLive(input: UpdateTimeToLiveInput): UpdateTimeToLiveOutput {
    return ttl.updateTimeToLive(this.#table(input.TableName), input);
  }

  /**
   * Describes TTL: ENABLED with its attribute, or DISABLED.
   *
   * @example
   * ```ts
   * dynamo.describeTimeToLive({ TableName: 't' }).TimeToLiveDescription?.TimeToLiveStatus
   * ```
   */
  describeTimeToLive(input: DescribeTimeToLiveInput): DescribeTimeToLiveOutput {
    return ttl.describeTimeToLive(this.#table(input.TableName));
  }

  /**
   * Reads an item (always consistent); no `Item` when absent.
   *
   * @example
   * ```ts
   * dynamo.getItem({ TableName: 't', Key: { pk: { S: 'a' } } }).Item
   * ```
   */
  getItem(input: GetItemInput): GetItemOutput {
    return getItem(this.#database, input);
  }

  /**
   * Reads up to 100 keys across tables; absent ones are left out, none is left unprocessed.
   *
   * @example
   * ```ts
   * dynamo.batchGetItem({ RequestItems: { t: { Keys: [{ pk: { S: 'a' } }] } } }).Responses
   * ```
   */
  batchGetItem(input: BatchGetItemInput): BatchGetItemOutput {
    return batchGetItem(this.#database, input);
  }

  /**
   * One page of a partition's items in sort-key order (see `queryItems.ts`); no `IndexName`.
   *
   * @example
   * ```ts
   * dynamo.query({ TableName: 't', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'a' } } }).Items
   * ```
   */
  query(input: QueryInput): QueryOutput {
    return queryItems(this.#database, input);
  }

  /**
   * One page of a table's items, in key order (see `scanItems.ts`); no `IndexName`, no segments.
   *
   * @example
   * ```ts
   * dynamo.scan({ TableName: 't', Limit: 100 }).LastEvaluatedKey
   * ```
   */
  scan(input: ScanInput): ScanOutput {
    return scanItems(this.#database, input);
  }

  /**
   * Writes an item if its condition holds (`ReturnValues`: NONE or ALL_OLD). With `at`, a
   * `TransactionConflictException` while a transaction in flight holds the item.
   *
   * @example
   * ```ts
   * dynamo.putItem({ TableName: 't', Item: { pk: { S: 'a' } }, ConditionExpression: 'attribute_not_exists(pk)' })
   * ```
   */
  putItem(input: PutItemInput, at?: ServerTime): PutItemOutput {
    return putItem(this.#database, input, at);
  }

  /**
   * Applies an update expression (creating the item) if its condition holds. With `at`, a
   * `TransactionConflictException` while a transaction in flight holds the item.
   *
   * @example
   * ```ts
   * dynamo.updateItem({ TableName: 't', Key, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': { N: '1' } } })
   * ```
   */
  updateItem(input: UpdateItemInput, at?: ServerTime): UpdateItemOutput {
    return updateItem(this.#database, input, at);
  }

  /**
   * Deletes an item if its condition holds; an absent item is no error. With `at`, a
   * `TransactionConflictException` while a transaction in flight holds the item.
   *
   * @example
   * ```ts
   * dynamo.deleteItem({ TableName: 't', Key: { pk: { S: 'a' } } })
   * ```
   */
  deleteItem(input: DeleteItemInput, at?: ServerTime): DeleteItemOutput {
    return deleteItem(this.#database, input, at);
  }

  /**
   * Applies up to 100 writes all or none, with positional cancellation reasons. With `at`, it
   * is cancelled with `TransactionConflict` at each item a transaction in flight holds, and once
   * applied holds its own items for `at.holdMillis` (see `transactWriteItems.ts`).
   *
   * @example
   * ```ts
   * dynamo.transactWriteItems({ TransactItems: [{ Put: { TableName: 't', Item } }] })
   * ```
   */
  transactWriteItems(input: TransactWriteItemsInput, at?: ServerTime): TransactWriteItemsOutput {
    return transactWriteItems(this.#database, input, at);
  }

  /**
   * The items of a table that TTL may delete at `nowEpochSeconds` (see `timeToLive.ts`);
   * they stay readable until the world calls {@link SimDynamoDB.deleteExpired}.
   *
   * @example
   * ```ts
   * for (const item of dynamo.expiredItems('inbox', now)) dynamo.deleteExpired('inbox', item, now);
   * ```
   */
  expiredItems(tableName: string, nowEpochSeconds: number): readonly Item[] {
    return ttl.expiredItems(this.#table(tableName), nowEpochSeconds);
  }

  /**
   * Deletes an item as TTL does (change cause `ttl`); only if still expired when
   * `nowEpochSeconds` is given. Returns whether it deleted.
   *
   * @example
   * ```ts
   * dynamo.deleteExpired('inbox', { pk: { S: 'ledger#evt-1' } })
   * ```
   */
  deleteExpired(tableName: string, key: Item, nowEpochSeconds?: number): boolean {
    return ttl.deleteExpired(this.#database, this.#table(tableName), key, nowEpochSeconds);
  }

  /**
   * An injected cancellation (reasons `None` but `code` at `index`); applies nothing.
   *
   * @example
   * ```ts
   * throw dynamo.cancelledBy(input, 0, 'TransactionConflict')
   * ```
   */
  cancelledBy(
    transactInput: { readonly TransactItems?: readonly unknown[] | undefined },
    index: number,
    code: InjectedCancellation,
  ): TransactionCanceledException {
    return cancelledBy(transactInput, index, code);
  }

  /**
   * An injected `TransactionConflict` on the item {@link injectedIndex} names: a single
   * message's inbox entry, or any member's item of a shared transaction; applies nothing.
   *
   * @example
   * ```ts
   * throw dynamo.injectedConflict(input)
   * ```
   */
  injectedConflict(transactInput: {
    readonly TransactItems?: readonly unknown[] | undefined;
    readonly ClientRequestToken?: string | undefined;
  }): TransactionCanceledException {
    this.#injectedConflicts++;
    return cancelledBy(transactInput, injectedIndex(transactInput), 'TransactionConflict');
  }

  /**
   * An injected throttling error for an operation (`'TransactWriteItems'`, `'GetItem'`…).
   *
   * @example
   * ```ts
   * throw dynamo.throttled('GetItem')
   * ```
   */
  throttled(operationName: string): ThrottlingException | ProvisionedThroughputExceededException {
    return throttled(operationName);
  }

  #table(nameOrArn: string | undefined): SimTable {
    const table = this.#tables.get(tableNameOf(nameOrArn ?? ''));
    if (table === undefined) throw resourceNotFound();
    return table;
  }

  #write(
    table: SimTable,
    id: string,
    keys: Item,
    next: Item | undefined,
    cause: ChangeCause,
    transactionId?: string,
  ): void {
    const oldImage = table.items.get(id);
    if (next === undefined) table.items.delete(id);
    else table.items.set(id, next);
    this.#log.record({
      tableName: table.name,
      keys,
      oldImage,
      newImage: next,
      transactionId,
      cause,
    });
  }
}
