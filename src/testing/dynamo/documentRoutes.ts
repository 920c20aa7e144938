import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
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
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { Item } from './compareValues.js';
import type { ServerTime } from './ItemHolds.js';
import type { SimDynamoDB } from './SimDynamoDB.js';

/**
 * The document client's own option, as the inbox store's client sets it.
 *
 * @example
 * ```ts
 * marshall(item, MARSHALL_OPTIONS);
 * ```
 */
export const MARSHALL_OPTIONS = { removeUndefinedValues: true } as const;

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
  readonly toWire: (input: Loose) => Loose;
  /** Applies the request; `at` (when the world models conflicts) reaches the writes. */
  readonly apply: (dynamo: SimDynamoDB, wireInput: Loose, at?: ServerTime) => Loose;
  readonly fromWire: (output: Loose) => Loose;
}

const toWireItem = (native: unknown) =>
  native === undefined ? undefined : marshall(native as Native, MARSHALL_OPTIONS);
const fromWireItem = (wire: unknown) => (wire === undefined ? undefined : unmarshall(wire as Item));

function defined(record: Loose): Loose {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}

/** lib-dynamodb converts these members of a write (and of each transaction item). */
function writeToWire(input: Loose): Loose {
  return defined({
    ...input,
    Key: toWireItem(input.Key),
    Item: toWireItem(input.Item),
    ExpressionAttributeValues: toWireItem(input.ExpressionAttributeValues),
  });
}

function transactionToWire(input: Loose): Loose {
  const items = (input.TransactItems as Loose[] | undefined)?.map((item) =>
    Object.fromEntries(
      Object.entries(item).map(([kind, write]) => [kind, writeToWire(write as Loose)]),
    ),
  );
  return defined({ ...input, TransactItems: items });
}

function batchGetToWire(input: Loose): Loose {
  const requests = Object.entries((input.RequestItems as Record<string, Loose>) ?? {}).map(
    ([table, request]) => [
      table,
      defined({ ...request, Keys: (request.Keys as Native[] | undefined)?.map(toWireItem) }),
    ],
  );
  return { ...input, RequestItems: Object.fromEntries(requests) };
}

/** lib-dynamodb converts these members of a Query or Scan. */
function readToWire(input: Loose): Loose {
  return defined({
    ...input,
    ExclusiveStartKey: toWireItem(input.ExclusiveStartKey),
    ExpressionAttributeValues: toWireItem(input.ExpressionAttributeValues),
  });
}

function readFromWire(output: Loose): Loose {
  return defined({
    ...output,
    Items: (output.Items as Item[] | undefined)?.map((item) => unmarshall(item)),
    LastEvaluatedKey: fromWireItem(output.LastEvaluatedKey),
  });
}

function withItem(name: 'Item' | 'Attributes') {
  return (output: Loose): Loose => defined({ ...output, [name]: fromWireItem(output[name]) });
}

function batchGetFromWire(output: Loose): Loose {
  const responses = Object.entries((output.Responses as Record<string, Item[]>) ?? {}).map(
    ([table, items]) => [table, items.map((item) => unmarshall(item))],
  );
  return { ...output, Responses: Object.fromEntries(responses) };
}

const same = (value: Loose) => value;
type Call = (dynamo: SimDynamoDB, input: never, at?: ServerTime) => unknown;
const call = (method: Call) => method as unknown as DocumentRoute['apply'];

/**
 * The commands {@link SimDocumentClient} understands: lib-dynamodb's item commands (native
 * values marshalled in, `Item`/`Attributes`/`Responses`/`Items`/`LastEvaluatedKey` unmarshalled out, errors untouched —
 * so a cancellation reason's `Item` stays in wire form, as with the real client) and
 * client-dynamodb's table commands (wire form both ways).
 *
 * @example
 * ```ts
 * const route = DOCUMENT_ROUTES.find((route) => command instanceof route.command);
 * ```
 */
export const DOCUMENT_ROUTES: readonly DocumentRoute[] = [
  {
    command: GetCommand,
    operation: 'GetItem',
    toWire: writeToWire,
    apply: call((d, i) => d.getItem(i)),
    fromWire: withItem('Item'),
  },
  {
    command: PutCommand,
    operation: 'PutItem',
    toWire: writeToWire,
    apply: call((d, i, at) => d.putItem(i, at)),
    fromWire: withItem('Attributes'),
  },
  {
    command: UpdateCommand,
    operation: 'UpdateItem',
    toWire: writeToWire,
    apply: call((d, i, at) => d.updateItem(i, at)),
    fromWire: withItem('Attributes'),
  },
  {
    command: DeleteCommand,
    operation: 'DeleteItem',
    toWire: writeToWire,
    apply: call((d, i, at) => d.deleteItem(i, at)),
    fromWire: withItem('Attributes'),
  },
  {
    command: TransactWriteCommand,
    operation: 'TransactWriteItems',
    toWire: transactionToWire,
    apply: call((d, i, at) => d.transactWriteItems(i, at)),
    fromWire: same,
  },
  {
    command: BatchGetCommand,
    operation: 'BatchGetItem',
    toWire: batchGetToWire,
    apply: call((d, i) => d.batchGetItem(i)),
    fromWire: batchGetFromWire,
  },
  {
    command: QueryCommand,
    operation: 'Query',
    toWire: readToWire,
    apply: call((d, i) => d.query(i)),
    fromWire: readFromWire,
  },
  {
    command: ScanCommand,
    operation: 'Scan',
    toWire: readToWire,
    apply: call((d, i) => d.scan(i)),
    fromWire: readFromWire,
  },
  {
    command: CreateTableCommand,
    operation: 'CreateTable',
    toWire: same,
    apply: call((d, i) => d.createTable(i)),
    fromWire: same,
  },
  {
    command: DeleteTableCommand,
    operation: 'DeleteTable',
    toWire: same,
    apply: call((d, i) => d.deleteTable(i)),
    fromWire: same,
  },
  {
    command: DescribeTableCommand,
    operation: 'DescribeTable',
    toWire: same,
    apply: call((d, i) => d.describeTable(i)),
    fromWire: same,
  },
  {
    command: UpdateTimeToLiveCommand,
    operation: 'UpdateTimeToLive',
    toWire: same,
    apply: call((d, i) => d.updateTimeToLive(i)),
    fromWire: same,
  },
  {
    command: DescribeTimeToLiveCommand,
    operation: 'DescribeTimeToLive',
    toWire: same,
    apply: call((d, i) => d.describeTimeToLive(i)),
    fromWire: same,
  },
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
