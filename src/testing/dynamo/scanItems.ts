import type { ScanInput, ScanOutput } from '@aws-sdk/client-dynamodb';
import { checkParameters } from './checkParameters.js';
import type { Database } from './Database.js';
import { validationException } from './dynamoExceptions.js';
import { prepareRead } from './prepareRead.js';
import { READ_PARAMETERS } from './queryItems.js';
import { compareKeys, readPage } from './readPage.js';

/**
 * `Scan`: every item of the table, one page at a time (see `readPage`: `Limit` counts items
 * before the filter, a page stops past 1 MB), filter and projection as in `Query`, and a
 * filter may name key attributes. The ORDER is the simulator's own: by partition key, then
 * sort key, each by its type's order. DynamoDB's order follows a hash of the partition key
 * (not modelled): code must not rely on either; within one partition both return items in
 * sort-key order. A parallel scan (`Segment`, `TotalSegments`) is not modelled and refused.
 *
 * @example
 * ```ts
 * scanItems(db, { TableName: 'inbox', FilterExpression: 'attribute_exists(lastError)', Limit: 100 });
 * ```
 */
export function scanItems(db: Database, input: ScanInput): ScanOutput {
  checkParameters('Scan', input, READ_PARAMETERS);
  const table = db.table(input.TableName);
  if (input.ExpressionAttributeValues !== undefined && input.FilterExpression === undefined) {
    throw validationException(
      'ExpressionAttributeValues can only be specified when using expressions: FilterExpression is null',
    );
  }
  const read = prepareRead(input, table);
  const items = [...table.items.values()].sort((a, b) => compareKeys(table, a, b));
  const start = read.startKey;
  const candidates = start ? items.filter((item) => compareKeys(table, item, start) > 0) : items;
  return readPage(read, candidates, { keyOnLimit: true });
}
