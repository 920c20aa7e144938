import type { QueryInput, QueryOutput } from '@aws-sdk/client-dynamodb';
import { resolvePath } from './attributePath.js';
import { checkKeyCondition } from './checkKeyCondition.js';
import { checkParameters, IGNORED_PARAMETERS } from './checkParameters.js';
import type { Item } from './compareValues.js';
import type { Database } from './Database.js';
import { validationException } from './dynamoExceptions.js';
import { type Condition, parseCondition } from './parseCondition.js';
import { conditionPaths, prepareRead } from './prepareRead.js';
import { compareKeys, readPage } from './readPage.js';
import type { SimTable } from './SimTable.js';

/**
 * The parameters of `Query` and `Scan` the simulator models. Not modelled, and refused by
 * `checkParameters`: `IndexName` (no secondary indexes), the legacy `KeyConditions`,
 * `QueryFilter`, `ScanFilter`, `AttributesToGet` and `ConditionalOperator`, and a parallel
 * `Scan`'s `Segment` and `TotalSegments`.
 *
 * @example
 * ```ts
 * checkParameters('Scan', input, READ_PARAMETERS);
 * ```
 */
export const READ_PARAMETERS = [
  'TableName',
  'FilterExpression',
  'ProjectionExpression',
  'ExpressionAttributeNames',
  'ExpressionAttributeValues',
  'Select',
  'Limit',
  'ExclusiveStartKey',
  'ConsistentRead',
  ...IGNORED_PARAMETERS,
];

/**
 * `Query`: the items of one partition that meet the key condition, in sort-key order (numbers
 * by value, strings and binaries by bytes; `ScanIndexForward: false` reverses it), one page at
 * a time (see `readPage`: `Limit` counts items before the filter, a page stops past 1 MB).
 * Reads are always consistent, so `ConsistentRead` changes nothing. Expired items are returned
 * until TTL deletes them, as in DynamoDB. A filter may not name a key attribute.
 *
 * @example
 * ```ts
 * queryItems(db, { TableName: 'orders', KeyConditionExpression: 'pk = :p AND begins_with(sk, :day)', ExpressionAttributeValues: { ':p': { S: 'c-1' }, ':day': { S: '2026-01-02' } } });
 * ```
 */
export function queryItems(db: Database, input: QueryInput): QueryOutput {
  checkParameters('Query', input, [
    ...READ_PARAMETERS,
    'KeyConditionExpression',
    'ScanIndexForward',
  ]);
  const table = db.table(input.TableName);
  if (input.KeyConditionExpression === undefined) {
    throw validationException(
      'Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.',
    );
  }
  const parsed = parseCondition(input.KeyConditionExpression, 'KeyConditionExpression');
  const read = prepareRead(input, table, parsed);
  const key = checkKeyCondition(parsed.root, table, read.placeholders);
  if (read.filter) checkFilterWithoutKeys(read.filter, table, input.ExpressionAttributeNames);
  const start = read.startKey;
  if (start && !key.matches(start)) {
    throw validationException('The provided starting key does not match the range key predicate');
  }
  const forward = input.ScanIndexForward !== false;
  const order = (a: Item, b: Item) =>
    forward ? compareKeys(table, a, b) : compareKeys(table, b, a);
  const matching = [...table.items.values()].filter(key.matches).sort(order);
  const candidates = start ? matching.filter((item) => order(item, start) > 0) : matching;
  return readPage(read, candidates, { keyOnLimit: table.keys.length > 1 });
}

/** Refuses a Query's filter on a key attribute, naming the first in key-schema order. */
function checkFilterWithoutKeys(
  filter: Condition,
  table: SimTable,
  names: Record<string, string> | undefined,
): void {
  const read = new Set(conditionPaths(filter).map((path) => resolvePath(path, names)[0]));
  const key = table.keys.find((attribute) => read.has(attribute.name));
  if (key === undefined) return;
  throw validationException(
    `Filter Expression can only contain non-primary key attributes: Primary key attribute: ${key.name}`,
  );
}
