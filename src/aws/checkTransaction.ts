import type { CancellationReason } from '@aws-sdk/client-dynamodb';
import { estimateItemBytes } from '../constants/itemSize.js';
import { InboxAttribute, TRANSACTION_LIMITS, TransactionLimit } from '../constants/values.js';
import type { CommitRequest } from '../core/InboxStore.js';
import type { InboxEntry } from '../core/inboxEntry.js';
import type { TransactItem } from '../core/TransactionBuilder.js';
import { TransactionLimitError } from '../errors.js';
import { recordedEntry } from './entryWrites.js';

/** The key attribute names of a table (partition key first); undefined when they may not be read. */
type KeyAttributeNames = (tableName: string) => Promise<readonly string[] | undefined>;

interface Located {
  readonly index: number;
  readonly type: string;
  readonly tableName: string;
  readonly key: Record<string, unknown> | undefined;
  readonly item: Record<string, unknown> | undefined;
  readonly expressionValues: Record<string, unknown> | undefined;
}

/**
 * Describes one transaction operation: its type, table and key (`Item` for a Put).
 *
 * @example
 * ```ts
 * locate({ Delete: { TableName: 't', Key: { pk: 'a' } } }, 0) // => { type: 'Delete', … }
 * ```
 */
export function locate(operation: TransactItem, index: number): Located {
  const [type, input] = Object.entries(operation)[0] ?? ['operation', {}];
  const body = (input ?? {}) as {
    TableName?: string;
    Key?: Record<string, unknown>;
    Item?: Record<string, unknown>;
    ExpressionAttributeValues?: Record<string, unknown>;
  };
  return {
    index,
    type,
    tableName: body.TableName ?? '',
    key: body.Key,
    item: body.Item,
    expressionValues: body.ExpressionAttributeValues,
  };
}

/**
 * What a checked transaction holds: its estimated size, and the identity (table and key) of
 * each of its items in `TransactItems` order (the entry, the operations, the outbox items).
 *
 * @example
 * ```ts
 * const { bytes, itemIds } = await checkTransaction(request, tables, [], keyNames, true);
 * ```
 */
export interface CheckedTransaction {
  readonly bytes: number;
  /** An item whose key was not looked up (a Put alone in its table) has an id of its own. */
  readonly itemIds: readonly string[];
}

/**
 * Checks what DynamoDB would reject, before sending: the size of each Put item and of the
 * whole transaction (estimated with DynamoDB's item-size rules, the outbox items included),
 * and two business operations on one item, the inbox entry included. A Put's key is found
 * through the table's key schema, looked up only when another operation touches the same
 * table, or for every Put with `identifyAll` (a commit that may share a transaction with other
 * messages'). The outbox items are distinct by construction (one per message or group).
 *
 * @example
 * ```ts
 * await checkTransaction(request, { inbox: 'inbox' }, [], keyAttributeNames); // throws TransactionLimitError
 * ```
 */
export async function checkTransaction(
  request: Pick<CommitRequest, 'operations' | 'entry' | 'outgoing'>,
  tables: { readonly inbox: string; readonly outbox?: string | undefined },
  outboxItems: readonly TransactItem[],
  keyAttributeNames: KeyAttributeNames,
  identifyAll = false,
): Promise<CheckedTransaction> {
  const located = request.operations.map(locate);
  checkLibraryTablesUntouched(located, tables);
  const outboxLocated = outboxItems.map((item, index) => locate(item, located.length + index));
  const bytes = checkSizes([...located, ...outboxLocated], recordedEntry(request));
  const tableCounts = countByTable(located, tables.inbox);
  const lookUp = (operation: Located) =>
    identifyAll || (tableCounts.get(operation.tableName) ?? 0) >= 2;
  const ids = await checkDistinctItems(located, request.entry, tables.inbox, (operation) =>
    keyOf(operation, lookUp(operation), keyAttributeNames),
  );
  const outboxIds = outboxLocated.map((item) =>
    identity(tables.outbox ?? '', { [InboxAttribute.PartitionKey]: item.item?.pk }),
  );
  return { bytes, itemIds: [...ids, ...outboxIds] };
}

/**
 * Only the library writes the inbox and outbox tables: a handler's write in the inbox could
 * mark another consumer's event as done (lost) or reopen an entry (applied twice); one in the
 * outbox would be relayed without the ids and checks of `tx.publish`.
 */
function checkLibraryTablesUntouched(
  operations: readonly Located[],
  tables: { readonly inbox: string; readonly outbox?: string | undefined },
): void {
  const inbox = tableNameOf(tables.inbox);
  const outbox = tables.outbox === undefined ? undefined : tableNameOf(tables.outbox);
  for (const operation of operations) {
    const table = tableNameOf(operation.tableName);
    if (table === inbox) {
      throw new TransactionLimitError(
        TransactionLimit.InboxTable,
        `${describeOperation(operation)} targets the inbox table, which only the library writes: an ` +
          "operation there could mark another consumer's message as done or reopen one. Keep " +
          'business data in its own table.',
        describeOperation(operation),
        'no operation on the inbox table',
      );
    }
    if (table === outbox) {
      throw new TransactionLimitError(
        TransactionLimit.OutboxTable,
        `${describeOperation(operation)} targets the outbox table, which only the library writes: ` +
          'publish outgoing messages with tx.publish, which gives them their ids.',
        describeOperation(operation),
        'no operation on the outbox table',
      );
    }
  }
}

/** A table's name, whether given as a name or as an ARN (`…:table/<name>`). */
function tableNameOf(nameOrArn: string): string {
  const marker = ':table/';
  const at = nameOrArn.indexOf(marker);
  return at === -1 ? nameOrArn : nameOrArn.slice(at + marker.length);
}

function checkSizes(operations: readonly Located[], entry: InboxEntry): number {
  let totalBytes = estimateItemBytes(entry as unknown as Record<string, unknown>);
  for (const operation of operations) {
    const itemBytes = estimateItemBytes(operation.item);
    if (itemBytes > TRANSACTION_LIMITS.maxItemBytes) {
      throw new TransactionLimitError(
        TransactionLimit.ItemBytes,
        `${describeOperation(operation)} writes an item of about ${itemBytes} bytes; DynamoDB ` +
          `items are limited to ${TRANSACTION_LIMITS.maxItemBytes} bytes. Store large payloads in S3 and keep a pointer.`,
        itemBytes,
        TRANSACTION_LIMITS.maxItemBytes,
      );
    }
    totalBytes +=
      itemBytes + estimateItemBytes(operation.key) + estimateItemBytes(operation.expressionValues);
  }
  if (totalBytes > TRANSACTION_LIMITS.maxTransactionBytes) {
    throw new TransactionLimitError(
      TransactionLimit.TransactionBytes,
      `the transaction holds about ${totalBytes} bytes; DynamoDB allows ` +
        `${TRANSACTION_LIMITS.maxTransactionBytes} bytes per transaction. Write less per message.`,
      totalBytes,
      TRANSACTION_LIMITS.maxTransactionBytes,
    );
  }
  return totalBytes;
}

/** The ids of the entry and of the operations, after refusing two operations on one item. */
async function checkDistinctItems(
  operations: readonly Located[],
  entry: InboxEntry,
  inboxTableName: string,
  keyFor: (operation: Located) => Promise<Record<string, unknown> | undefined>,
): Promise<string[]> {
  const entryId = identity(inboxTableName, { [InboxAttribute.PartitionKey]: entry.pk });
  const seen = new Map<string, string>([[entryId, 'the inbox entry']]);
  const ids = [entryId];
  for (const operation of operations) {
    const key = await keyFor(operation);
    const id =
      key === undefined
        ? `\u0001unlooked ${entryId} #${operation.index}`
        : identity(operation.tableName, key);
    ids.push(id);
    if (key === undefined) continue;
    const previous = seen.get(id);
    if (previous !== undefined) {
      throw new TransactionLimitError(
        TransactionLimit.SameItem,
        `${describeOperation(operation)} and ${previous} touch the same item (same ` +
          `${Object.keys(key).join(', ')}); DynamoDB allows one operation per item in a transaction. ` +
          'Merge them into one Update.',
        describeOperation(operation),
        'one operation per item',
      );
    }
    seen.set(id, describeOperation(operation));
  }
  return ids;
}

/** An operation's key: its `Key`, or a Put's item's key attributes when `lookUp` says to find them. */
async function keyOf(
  operation: Located,
  lookUp: boolean,
  keyAttributeNames: KeyAttributeNames,
): Promise<Record<string, unknown> | undefined> {
  if (operation.key !== undefined) return operation.key;
  if (operation.item === undefined || !lookUp) return undefined;
  const names = await keyAttributeNames(operation.tableName);
  if (names === undefined) return undefined;
  const item = operation.item;
  return Object.fromEntries(names.map((name) => [name, item[name]]));
}

function countByTable(operations: readonly Located[], inboxTableName: string): Map<string, number> {
  const counts = new Map<string, number>([[inboxTableName, 1]]);
  for (const { tableName } of operations) counts.set(tableName, (counts.get(tableName) ?? 0) + 1);
  return counts;
}

function identity(tableName: string, key: Record<string, unknown>): string {
  const parts = Object.keys(key)
    .sort()
    .map((name) => `${name}=${canonicalValue(key[name])}`);
  // By name: a table named by its ARN in one operation and by its name in another is one table.
  return `${tableNameOf(tableName)}\u0000${parts.join('\u0000')}`;
}

function canonicalValue(value: unknown): string {
  if (typeof value === 'string') return `S:${value}`;
  if (typeof value === 'number' || typeof value === 'bigint')
    return `N:${canonicalNumber(String(value))}`;
  if (value instanceof Uint8Array) return `B:${Buffer.from(value).toString('base64')}`;
  if (typeof value === 'object' && value !== null && 'value' in value) {
    return `N:${canonicalNumber(String(value.value))}`; // lib-dynamodb NumberValue
  }
  return `?:${JSON.stringify(value)}`;
}

/** A number's text as DynamoDB compares it: no sign on zero, no leading or trailing zeros. */
function canonicalNumber(text: string): string {
  const match = /^([+-]?)0*(\d*?)(?:\.(\d*?)0*)?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!match) return text;
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits === '') return '0';
  const scale = Number(exponent) - fraction.length;
  return `${sign === '-' ? '-' : ''}${digits.replace(/0+$/, '')}e${scale + (digits.length - digits.replace(/0+$/, '').length)}`;
}

/**
 * Names an operation for an error message.
 *
 * @example
 * ```ts
 * describeOperation(locate(op, 2)) // => 'Update #2 on stock'
 * ```
 */
export function describeOperation(operation: Located): string {
  return `${operation.type} #${operation.index} on ${operation.tableName}`;
}

/**
 * A cancellation no retry fixes (a ValidationError on an item, say), naming each failing
 * operation; reason 0 is the inbox entry's.
 *
 * @example
 * ```ts
 * throw rejectedTransaction(error, error.CancellationReasons ?? [], request.operations);
 * ```
 */
export function rejectedTransaction(
  error: Error,
  reasons: readonly CancellationReason[],
  operations: readonly TransactItem[],
): TransactionLimitError {
  const failures = reasons.flatMap((reason, index) => {
    if (reason.Code === undefined || reason.Code === 'None') return [];
    const operation = operations[index - 1];
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
