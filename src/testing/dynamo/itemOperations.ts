import type {
  AttributeValue,
  BatchGetItemInput,
  BatchGetItemOutput,
  DeleteItemInput,
  DeleteItemOutput,
  GetItemInput,
  GetItemOutput,
  PutItemInput,
  PutItemOutput,
  UpdateItemInput,
  UpdateItemOutput,
} from '@aws-sdk/client-dynamodb';
import { type ResolvedPath, readPath } from './attributePath.js';
import { checkParameters, IGNORED_PARAMETERS } from './checkParameters.js';
import type { Item } from './compareValues.js';
import type { Database } from './Database.js';
import {
  conditionalCheckFailed,
  transactionConflict,
  validationException,
} from './dynamoExceptions.js';
import type { ConflictRecord, ServerTime } from './ItemHolds.js';
import { normalizeItem } from './normalizeItem.js';
import { prepareProjection, projected } from './prepareProjection.js';
import { evaluateWrite, type PreparedWrite, prepareWrite } from './prepareWrite.js';

const EXPRESSIONS = [
  'ConditionExpression',
  'ExpressionAttributeNames',
  'ExpressionAttributeValues',
];
const WRITE = [
  'TableName',
  ...EXPRESSIONS,
  'ReturnValues',
  'ReturnValuesOnConditionCheckFailure',
  ...IGNORED_PARAMETERS,
];
const MAX_BATCH_GET_KEYS = 100;
/** A read of items by key may project them. */
const PROJECTION = ['ProjectionExpression', 'ExpressionAttributeNames'];

/**
 * `GetItem`: the item of a key, projected if asked, or no `Item` when absent (reads are always
 * consistent here).
 *
 * @example
 * ```ts
 * getItem(db, { TableName: 'inbox', Key: { pk: { S: 'ledger#evt-1' } } }) // => { Item: … } or {}
 * ```
 */
export function getItem(db: Database, input: GetItemInput): GetItemOutput {
  checkParameters('GetItem', input, [
    'TableName',
    'Key',
    'ConsistentRead',
    ...PROJECTION,
    'ReturnConsumedCapacity',
  ]);
  const table = db.table(input.TableName);
  const paths = prepareProjection(input, table);
  const item = table.items.get(table.keyOfKey(normalizeItem(input.Key ?? {})).id);
  return item === undefined ? {} : { Item: projected(item, paths) };
}

/**
 * `BatchGetItem`: the items of up to 100 keys across tables, each table's projected if asked,
 * absent ones left out; nothing is ever left unprocessed.
 *
 * @example
 * ```ts
 * batchGetItem(db, { RequestItems: { stock: { Keys: [{ sku: { S: 'a' } }] } } }) // => { Responses: { stock: [...] }, UnprocessedKeys: {} }
 * ```
 */
export function batchGetItem(db: Database, input: BatchGetItemInput): BatchGetItemOutput {
  checkParameters('BatchGetItem', input, ['RequestItems', 'ReturnConsumedCapacity']);
  const requests = Object.entries(input.RequestItems ?? {});
  const count = requests.reduce((sum, [, request]) => sum + (request.Keys?.length ?? 0), 0);
  if (count > MAX_BATCH_GET_KEYS)
    throw validationException('Too many items requested for the BatchGetItem call');
  const responses: Record<string, Item[]> = {};
  for (const [tableName, request] of requests) {
    checkParameters('BatchGetItem', request, ['Keys', 'ConsistentRead', ...PROJECTION]);
    const table = db.table(tableName);
    const paths = prepareProjection(request, table);
    const keys = request.Keys ?? [];
    if (keys.length === 0) {
      throw validationException(
        `1 validation error detected: Value at 'RequestItems.${tableName}.member.Keys' failed to satisfy constraint: Member must have length greater than or equal to 1`,
      );
    }
    const ids = keys.map((key) => table.keyOfKey(normalizeItem(key)).id);
    if (new Set(ids).size !== ids.length)
      throw validationException('Provided list of item keys contains duplicates');
    responses[tableName] = ids.flatMap((id) => {
      const item = table.items.get(id);
      return item === undefined ? [] : [projected(item, paths)];
    });
  }
  return { Responses: responses, UnprocessedKeys: {} };
}

/**
 * `PutItem`: writes the item if its condition holds; `ReturnValues: 'ALL_OLD'` returns the
 * item it replaced. Given the time it reaches the server (`at`), it fails with
 * `TransactionConflictException` while a transaction in flight holds the item (it holds
 * nothing itself); so do `UpdateItem` and `DeleteItem`.
 *
 * @example
 * ```ts
 * putItem(db, { TableName: 't', Item: item, ConditionExpression: 'attribute_not_exists(pk)' });
 * ```
 */
export function putItem(db: Database, input: PutItemInput, at?: ServerTime): PutItemOutput {
  checkParameters('PutItem', input, ['Item', ...WRITE]);
  checkReturnValues(input.ReturnValues, ['NONE', 'ALL_OLD']);
  const { old } = writeOne(
    db,
    prepareWrite('Put', input, (name) => db.table(name)),
    at && { ...at, operation: 'PutItem' },
  );
  return input.ReturnValues === 'ALL_OLD' && old ? { Attributes: old } : {};
}

/**
 * `UpdateItem`: applies the update expression (creating the item when absent) if the
 * condition holds; `ReturnValues` as DynamoDB (`UPDATED_*` return only the updated paths,
 * whole lists for paths through a list index).
 *
 * @example
 * ```ts
 * updateItem(db, { TableName: 't', Key: key, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': { N: '1' } } });
 * ```
 */
export function updateItem(
  db: Database,
  input: UpdateItemInput,
  at?: ServerTime,
): UpdateItemOutput {
  checkParameters('UpdateItem', input, ['Key', 'UpdateExpression', ...WRITE]);
  checkReturnValues(input.ReturnValues, [
    'NONE',
    'ALL_OLD',
    'UPDATED_OLD',
    'ALL_NEW',
    'UPDATED_NEW',
  ]);
  const write = prepareWrite('Update', input, (name) => db.table(name));
  const { old, next } = writeOne(db, write, at && { ...at, operation: 'UpdateItem' });
  const paths = (write.update?.targets ?? []).map(upToFirstIndex);
  const attributes: Record<string, Item | undefined> = {
    ALL_OLD: old,
    ALL_NEW: next,
    UPDATED_OLD: old && project(old, paths),
    UPDATED_NEW: next && project(next, paths),
  };
  const returned = attributes[input.ReturnValues ?? 'NONE'];
  return returned === undefined || Object.keys(returned).length === 0
    ? {}
    : { Attributes: returned };
}

/**
 * `DeleteItem`: deletes the item if the condition holds (an absent item is no error);
 * `ReturnValues: 'ALL_OLD'` returns it.
 *
 * @example
 * ```ts
 * deleteItem(db, { TableName: 't', Key: key, ReturnValues: 'ALL_OLD' });
 * ```
 */
export function deleteItem(
  db: Database,
  input: DeleteItemInput,
  at?: ServerTime,
): DeleteItemOutput {
  checkParameters('DeleteItem', input, ['Key', ...WRITE]);
  checkReturnValues(input.ReturnValues, ['NONE', 'ALL_OLD']);
  const { old } = writeOne(
    db,
    prepareWrite('Delete', input, (name) => db.table(name)),
    at && { ...at, operation: 'DeleteItem' },
  );
  return input.ReturnValues === 'ALL_OLD' && old ? { Attributes: old } : {};
}

function checkReturnValues(given: string | undefined, allowed: readonly string[]): void {
  if (given !== undefined && !allowed.includes(given)) {
    throw validationException('Return values set to invalid value');
  }
}

function writeOne(
  db: Database,
  write: PreparedWrite,
  at: (ServerTime & { readonly operation: ConflictRecord['operation'] }) | undefined,
): { old?: Item; next?: Item } {
  if (at !== undefined && db.holds.isHeld(write, at.nowMillis)) {
    const heldBy = db.holds.holdersOf([write], at.nowMillis);
    db.noteConflict({ atMillis: at.nowMillis, operation: at.operation, by: at.by, heldBy });
    throw transactionConflict();
  }
  const old = write.table.items.get(write.id);
  const outcome = evaluateWrite(write, old);
  if (!outcome.ok) {
    if (outcome.code === 'ValidationError') throw validationException(outcome.message);
    throw conditionalCheckFailed(write.returnOldOnFailure ? old : undefined);
  }
  db.write(write.table, write.id, write.key, outcome.next, 'write');
  return { ...(old && { old }), ...(outcome.next && { next: outcome.next }) };
}

function upToFirstIndex(path: ResolvedPath): ResolvedPath {
  const index = path.findIndex((element) => typeof element === 'number');
  return index === -1 ? path : path.slice(0, index);
}

/** The parts of an item at the given map paths, nested as in the item. */
function project(item: Item, paths: readonly ResolvedPath[]): Item {
  let projection: Item = {};
  for (const path of paths) {
    const value = readPath(item, path);
    if (value !== undefined) projection = nest(projection, path as readonly string[], value);
  }
  return projection;
}

function nest(into: Item, path: readonly string[], value: AttributeValue): Item {
  const [name, ...rest] = path as [string, ...string[]];
  if (rest.length === 0) return { ...into, [name]: value };
  return { ...into, [name]: { M: nest(into[name]?.M ?? {}, rest, value) } };
}
