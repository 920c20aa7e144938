import type { ServerTime } from './ItemHolds.js';
import type { SimDynamoDB } from './SimDynamoDB.js';

type Loose = Record<string, unknown>;

/**
 * Applies one DynamoDB operation, in wire form, to the model; `at` (the time the request reaches
 * the server, when a simulation models transaction conflicts) reaches the writes.
 *
 * @example
 * ```ts
 * const apply: ApplyOperation = (dynamo, input) => dynamo.getItem(input);
 * ```
 */
export type ApplyOperation = (dynamo: SimDynamoDB, wireInput: Loose, at?: ServerTime) => Loose;

type Call = (dynamo: SimDynamoDB, input: never, at?: ServerTime) => unknown;
const call = (method: Call) => method as unknown as ApplyOperation;

/**
 * Every DynamoDB operation the model answers, by its API name (`X-Amz-Target`'s action): the
 * one list that both the simulation's document client and the testing kit's SDK client route by.
 *
 * @example
 * ```ts
 * MODEL_OPERATIONS.GetItem?.(dynamo, { TableName: 'inbox', Key: { pk: { S: 'a' } } });
 * ```
 */
export const MODEL_OPERATIONS: Readonly<Record<string, ApplyOperation>> = {
  GetItem: call((d, i) => d.getItem(i)),
  PutItem: call((d, i, at) => d.putItem(i, at)),
  UpdateItem: call((d, i, at) => d.updateItem(i, at)),
  DeleteItem: call((d, i, at) => d.deleteItem(i, at)),
  TransactWriteItems: call((d, i, at) => d.transactWriteItems(i, at)),
  BatchGetItem: call((d, i) => d.batchGetItem(i)),
  Query: call((d, i) => d.query(i)),
  Scan: call((d, i) => d.scan(i)),
  CreateTable: call((d, i) => d.createTable(i)),
  DeleteTable: call((d, i) => d.deleteTable(i)),
  DescribeTable: call((d, i) => d.describeTable(i)),
  UpdateTimeToLive: call((d, i) => d.updateTimeToLive(i)),
  DescribeTimeToLive: call((d, i) => d.describeTimeToLive(i)),
};
