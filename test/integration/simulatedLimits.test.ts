/**
 * The limits DynamoDB sets on key values and on nesting, on several DynamoDBs: the project's
 * emulator (MiniStack under `integration`, DynamoDB Local under `conformance`) and the model of
 * src/testing/dynamo through both its clients (test/support/dynamoTargets.ts). DynamoDB Local is
 * the reference, and DynamoDB's documented limits agree (a 2,048-byte partition key value, a
 * 1,024-byte sort key value, 32 levels of nesting): each case checks Local's words. A case
 * MiniStack gets wrong is marked "known-different on MiniStack" and expected to fail there. An
 * empty or too large sort key value in a Query's key condition is with the other key-condition
 * refusals, in test/support/queryRefusals.ts.
 */
import {
  BatchGetCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  caught,
  createTable,
  deleteTables,
  dynamoTargets,
  uniqueKey,
} from '../support/dynamoTargets.js';

const KEY_TOO_LARGE =
  'Hash primary key values must be under 2048 bytes, and range primary key values must be under 1024 bytes';
const NESTING_TOO_DEEP = 'Nesting Levels have exceeded supported limits';

type Key = Record<string, unknown>;
type Send = (client: DynamoDBDocumentClient, TableName: string, Key: Key) => Promise<unknown>;

/** Every request that names an item by its key, outside a transaction. */
const REQUESTS: ReadonlyArray<{ readonly request: string; readonly send: Send }> = [
  {
    request: 'PutItem',
    send: (c, TableName, Key) => c.send(new PutCommand({ TableName, Item: Key })),
  },
  { request: 'GetItem', send: (c, TableName, Key) => c.send(new GetCommand({ TableName, Key })) },
  {
    request: 'UpdateItem',
    send: (c, TableName, Key) =>
      c.send(
        new UpdateCommand({
          TableName,
          Key,
          UpdateExpression: 'SET n = :n',
          ExpressionAttributeValues: { ':n': 1 },
        }),
      ),
  },
  {
    request: 'DeleteItem',
    send: (c, TableName, Key) => c.send(new DeleteCommand({ TableName, Key })),
  },
  {
    request: 'BatchGetItem',
    send: (c, TableName, Key) =>
      c.send(new BatchGetCommand({ RequestItems: { [TableName]: { Keys: [Key] } } })),
  },
];

/** Key values at and one character past each limit: `é` is two bytes in UTF-8. */
const KEY_CASES = [
  {
    part: 'a partition key value over 2,048 bytes',
    fits: { pk: 'x'.repeat(2048), sk: 's' },
    over: { pk: 'é'.repeat(1025), sk: 's' },
  },
  {
    part: 'a sort key value over 1,024 bytes',
    fits: { pk: 'p', sk: 'x'.repeat(1024) },
    over: { pk: 'p', sk: 'é'.repeat(513) },
  },
];

/** `levels` maps (or lists) one inside the other around `innermost`. */
function nested(levels: number, shape: 'map' | 'list', innermost: unknown = 1): unknown {
  let value = innermost;
  for (let level = 0; level < levels; level++) value = shape === 'map' ? { m: value } : [value];
  return value;
}

describe.each(dynamoTargets())('key and nesting limits on $name', (target) => {
  /** A test DynamoDB Local passes and MiniStack fails: expected to fail on MiniStack. */
  const knownDifferentOnMiniStack = target.name.startsWith('MiniStack') ? it.fails : it;
  let client: DynamoDBDocumentClient;
  let close: () => void;
  let table = '';

  beforeAll(async () => {
    ({ client, close } = target.connect());
    table = await createTable(client, 'limits', [
      ['pk', 'S', 'HASH'],
      ['sk', 'S', 'RANGE'],
    ]);
  });
  afterAll(async () => {
    await deleteTables(client, [table]);
    close();
  });

  describe.each(KEY_CASES)('$part', ({ fits, over }) => {
    knownDifferentOnMiniStack.each(REQUESTS)(
      'is refused in $request, and one at the limit taken (known-different on MiniStack, which words it "Aggregated size of all … keys has exceeded the size limit")',
      async ({ send }) => {
        await send(client, table, fits);
        const error = await caught(send(client, table, over));
        expect(error.name).toBe('ValidationException');
        expect(error.message).toBe(KEY_TOO_LARGE);
      },
    );

    knownDifferentOnMiniStack(
      'cancels a transaction with a ValidationError reason at each item of that key (two such items are not refused as one item twice), None at the others, writing nothing (known-different on MiniStack, which refuses the request with a ValidationException)',
      async () => {
        const pk = uniqueKey();
        const error = await caught(
          client.send(
            new TransactWriteCommand({
              TransactItems: [
                { Put: { TableName: table, Item: { pk, sk: 's' } } },
                { Put: { TableName: table, Item: over } },
                {
                  ConditionCheck: {
                    TableName: table,
                    Key: over,
                    ConditionExpression: 'attribute_not_exists(pk)',
                  },
                },
              ],
            }),
          ),
        );
        expect(error.name).toBe('TransactionCanceledException');
        expect(error.CancellationReasons).toEqual([
          { Code: 'None' },
          { Code: 'ValidationError', Message: KEY_TOO_LARGE },
          { Code: 'ValidationError', Message: KEY_TOO_LARGE },
        ]);
        const { Item } = await client.send(
          new GetCommand({ TableName: table, Key: { pk, sk: 's' } }),
        );
        expect(Item).toBeUndefined();
      },
    );
  });

  describe('nesting', () => {
    // MiniStack prefixes "1 validation error detected: " and takes an empty map at the 32nd level.
    knownDifferentOnMiniStack.each([
      { shape: 'maps', levels: (n: number) => nested(n, 'map') },
      { shape: 'lists', levels: (n: number) => nested(n, 'list') },
      { shape: 'maps, the innermost empty', levels: (n: number) => nested(n - 1, 'map', {}) },
    ])(
      'takes an attribute of 31 $shape one inside the other and refuses 32 in a Put (known-different on MiniStack)',
      async ({ levels }) => {
        const put = (value: unknown) =>
          client.send(
            new PutCommand({ TableName: table, Item: { pk: uniqueKey(), sk: 's', value } }),
          );
        await put(levels(31));
        const error = await caught(put(levels(32)));
        expect(error.name).toBe('ValidationException');
        expect(error.message).toBe(
          `${NESTING_TOO_DEEP}: Attributes in the item have nested levels beyond supported limit`,
        );
      },
    );

    knownDifferentOnMiniStack(
      'refuses an update that would nest an attribute 32 levels deep, counting the maps above the path it sets (known-different on MiniStack, which answers in the words of a Put)',
      async () => {
        const key = { pk: uniqueKey(), sk: 's' };
        await client.send(new PutCommand({ TableName: table, Item: { ...key, m: {} } }));
        const setInside = (value: unknown) =>
          client.send(
            new UpdateCommand({
              TableName: table,
              Key: key,
              UpdateExpression: 'SET m.deeper = :v',
              ExpressionAttributeValues: { ':v': value },
            }),
          );
        await setInside(nested(30, 'map'));
        const error = await caught(setInside(nested(31, 'map')));
        expect(error.name).toBe('ValidationException');
        expect(error.message).toBe(NESTING_TOO_DEEP);
      },
    );
  });
});
