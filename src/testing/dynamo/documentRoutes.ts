import {
  BatchGetItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  GetItemCommand,
  QueryCommand as LowLevelQueryCommand,
  ScanCommand as LowLevelScanCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  type marshallOptions as MarshallOptions,
  marshall,
  type unmarshallOptions as UnmarshallOptions,
  unmarshall,
} from '@aws-sdk/util-dynamodb';
import type { Item } from './compareValues.js';
import type { ServerTime } from './ItemHolds.js';
import { MODEL_OPERATIONS } from './modelOperations.js';
import type { SimDynamoDB } from './SimDynamoDB.js';

type Native = Record<string, unknown>;
type Loose = Record<string, unknown>;

/**
 * How one command class reaches the simulator: its operation, wire input and output.
 *
 * @example
 * ```ts
 * const route = DOCUMENT_ROUTES.find((candidate) => command instanceof candidate.command);
 * ```
 */
export interface DocumentRoute {
  readonly command: abstract new (...args: never[]) => { readonly input: object };
  readonly operation: string;
  /** The request in wire form, its native values marshalled with the client's `marshallOptions`. */
  readonly toWire: (input: Loose, options: MarshallOptions) => Loose;
  /** Applies the request; `at` (when the world models conflicts) reaches the writes. */
  readonly apply: (dynamo: SimDynamoDB, wireInput: Loose, at?: ServerTime) => Loose;
  /** The answer in native form, unmarshalled with the client's `unmarshallOptions`. */
  readonly fromWire: (output: Loose, options: UnmarshallOptions) => Loose;
}

/**
 * A record of native values (an `Item`, a `Key`, `ExpressionAttributeValues`) in wire form, as
 * lib-dynamodb marshals it: attribute by attribute, an undefined or function attribute left out
 * whatever the options (only one inside a map, list or set meets `removeUndefinedValues`), a map
 * or list attribute kept whole (`convertTopLevelContainer`, unless the options turn it off).
 */
function toWireItem(native: unknown, options: MarshallOptions): Item | undefined {
  if (native === undefined) return undefined;
  const attributeOptions = {
    ...options,
    convertTopLevelContainer: options.convertTopLevelContainer ?? true,
  };
  const wire: Item = {};
  for (const [name, value] of Object.entries(native as Native)) {
    if (value === undefined || typeof value === 'function') continue;
    wire[name] = marshall(value, attributeOptions) as Item[string];
  }
  return wire;
}

const fromWireItem = (wire: unknown, options: UnmarshallOptions) =>
  wire === undefined ? undefined : unmarshall(wire as Item, options);

function defined(record: Loose): Loose {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}

/** lib-dynamodb converts these members of a write (and of each transaction item). */
function writeToWire(input: Loose, options: MarshallOptions): Loose {
  return defined({
    ...input,
    Key: toWireItem(input.Key, options),
    Item: toWireItem(input.Item, options),
    ExpressionAttributeValues: toWireItem(input.ExpressionAttributeValues, options),
  });
}

function transactionToWire(input: Loose, options: MarshallOptions): Loose {
  const items = (input.TransactItems as Loose[] | undefined)?.map((item) =>
    Object.fromEntries(
      Object.entries(item).map(([kind, write]) => [kind, writeToWire(write as Loose, options)]),
    ),
  );
  return defined({ ...input, TransactItems: items });
}

function batchGetToWire(input: Loose, options: MarshallOptions): Loose {
  const requests = Object.entries((input.RequestItems as Record<string, Loose>) ?? {}).map(
    ([table, request]) => [
      table,
      defined({
        ...request,
        Keys: (request.Keys as Native[] | undefined)?.map((key) => toWireItem(key, options)),
      }),
    ],
  );
  return { ...input, RequestItems: Object.fromEntries(requests) };
}

/** lib-dynamodb converts these members of a Query or Scan. */
function readToWire(input: Loose, options: MarshallOptions): Loose {
  return defined({
    ...input,
    ExclusiveStartKey: toWireItem(input.ExclusiveStartKey, options),
    ExpressionAttributeValues: toWireItem(input.ExpressionAttributeValues, options),
  });
}

function readFromWire(output: Loose, options: UnmarshallOptions): Loose {
  return defined({
    ...output,
    Items: (output.Items as Item[] | undefined)?.map((item) => unmarshall(item, options)),
    LastEvaluatedKey: fromWireItem(output.LastEvaluatedKey, options),
  });
}

function withItem(name: 'Item' | 'Attributes') {
  return (output: Loose, options: UnmarshallOptions): Loose =>
    defined({ ...output, [name]: fromWireItem(output[name], options) });
}

function batchGetFromWire(output: Loose, options: UnmarshallOptions): Loose {
  const responses = Object.entries((output.Responses as Record<string, Item[]>) ?? {}).map(
    ([table, items]) => [table, items.map((item) => unmarshall(item, options))],
  );
  return { ...output, Responses: Object.fromEntries(responses) };
}

const same = (value: Loose) => value;

function route(
  command: DocumentRoute['command'],
  operation: string,
  toWire: DocumentRoute['toWire'] = same,
  fromWire: DocumentRoute['fromWire'] = same,
): DocumentRoute {
  const apply = MODEL_OPERATIONS[operation];
  if (apply === undefined) throw new Error(`no model operation ${operation}`);
  return { command, operation, toWire, apply, fromWire };
}

/**
 * The commands {@link SimDocumentClient} understands: lib-dynamodb's item commands (native
 * values marshalled in and `Item`, `Attributes`, `Responses`, `Items` and `LastEvaluatedKey`
 * unmarshalled out, with the client's translate options, as lib-dynamodb does; errors untouched,
 * so a cancellation reason's `Item` stays in wire form, as with the real client) and
 * client-dynamodb's commands (wire form both ways), each applied by the model operation of its
 * name.
 *
 * @example
 * ```ts
 * const route = DOCUMENT_ROUTES.find((route) => command instanceof route.command);
 * ```
 */
export const DOCUMENT_ROUTES: readonly DocumentRoute[] = [
  route(GetCommand, 'GetItem', writeToWire, withItem('Item')),
  route(PutCommand, 'PutItem', writeToWire, withItem('Attributes')),
  route(UpdateCommand, 'UpdateItem', writeToWire, withItem('Attributes')),
  route(DeleteCommand, 'DeleteItem', writeToWire, withItem('Attributes')),
  route(TransactWriteCommand, 'TransactWriteItems', transactionToWire, same),
  route(BatchGetCommand, 'BatchGetItem', batchGetToWire, batchGetFromWire),
  route(QueryCommand, 'Query', readToWire, readFromWire),
  route(ScanCommand, 'Scan', readToWire, readFromWire),
  route(GetItemCommand, 'GetItem'),
  route(PutItemCommand, 'PutItem'),
  route(UpdateItemCommand, 'UpdateItem'),
  route(DeleteItemCommand, 'DeleteItem'),
  route(TransactWriteItemsCommand, 'TransactWriteItems'),
  route(BatchGetItemCommand, 'BatchGetItem'),
  route(LowLevelQueryCommand, 'Query'),
  route(LowLevelScanCommand, 'Scan'),
  route(CreateTableCommand, 'CreateTable'),
  route(DeleteTableCommand, 'DeleteTable'),
  route(DescribeTableCommand, 'DescribeTable'),
  route(UpdateTimeToLiveCommand, 'UpdateTimeToLive'),
  route(DescribeTimeToLiveCommand, 'DescribeTimeToLive'),
];

/**
 * The tables a wire request touches, in order of first mention.
 *
 * @example
 * ```ts
 * tableNamesOf({ TransactItems: [{ Put: { TableName: 'inbox' } }] }) // => ['inbox']
 * ```
 */
export function tableNamesOf(wireInput: Loose): string[] {
  const names = new Set<string>();
  if (typeof wireInput.TableName === 'string') names.add(wireInput.TableName);
  for (const item of (wireInput.TransactItems as Loose[] | undefined) ?? []) {
    for (const write of Object.values(item)) {
      const name = (write as Loose | undefined)?.TableName;
      if (typeof name === 'string') names.add(name);
    }
  }
  for (const name of Object.keys((wireInput.RequestItems as Loose | undefined) ?? {}))
    names.add(name);
  return [...names];
}
