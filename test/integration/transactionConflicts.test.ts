/**
 * DynamoDB's transaction-conflict rules and the simulator's model of them (src/testing/dynamo/ItemHolds.ts).
 * No emulator implements these rules: MiniStack and DynamoDB Local apply concurrent transactions
 * on one item one after another, never answering TransactionConflict. So the rules the model
 * follows are taken from DynamoDB's documentation ("Transaction conflict handling",
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-conflict-handling,
 * and the TransactionInProgressException and ClientRequestToken entries of the API reference),
 * each pinned by a unit test of the model (DOCUMENTED_ONLY below, checked to exist). What the
 * emulators can show is checked here on each of them and on the simulator: a same-item pair of
 * transactions sent one after the other applies without conflict, concurrent ones are not
 * refused by the emulators, and a cancelled transaction has the shape the model's conflict
 * cancellation copies.
 */
import { readFileSync } from 'node:fs';
import type { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transientReasonOf } from '../../src/aws/dynamoDBErrors.js';
import { TransientReason } from '../../src/errors.js';
import { SimDocumentClient } from '../../src/testing/dynamo/SimDocumentClient.js';
import { SimDynamoDB } from '../../src/testing/dynamo/SimDynamoDB.js';
import {
  type CaughtError,
  caught,
  createTable,
  deleteTables,
  dynamoTargets,
  uniqueKey,
} from '../support/dynamoTargets.js';

/**
 * The rules taken from the documentation because no emulator implements them, each with the
 * unit test (test/unit/sim/ItemHolds.test.ts) that pins the model to it.
 */
const DOCUMENTED_ONLY = [
  {
    rule: 'a TransactWriteItems meeting an item another one in flight holds is cancelled, TransactionConflict at that item and None elsewhere, nothing applied',
    pinnedBy:
      'cancels a second transaction that touches a held item, with TransactionConflict at that item only, and applies nothing',
  },
  {
    rule: 'every item of a transaction is held, a ConditionCheck’s too',
    pinnedBy: 'names every held item of a cancelled transaction, a ConditionCheck’s too',
  },
  {
    rule: 'a PutItem, UpdateItem or DeleteItem of a held item fails with TransactionConflictException (the SDK does not retry it)',
    pinnedBy:
      'answers a PutItem, UpdateItem or DeleteItem of a held item with TransactionConflictException, which the library retries as a conflict',
  },
  {
    rule: 'reads (GetItem, BatchGetItem) are never refused',
    pinnedBy: 'never refuses a read of a held item: GetItem and BatchGetItem see it',
  },
  {
    rule: 'single-item writes hold nothing',
    pinnedBy:
      'holds nothing for a single-item write, a cancelled transaction, or a request given no time',
  },
  {
    rule: 'an item is told by its table and full key',
    pinnedBy:
      'tells a held item by table and full key: a Put’s key from the schema, another sort key is another item',
  },
  {
    rule: 'the same ClientRequestToken while its transaction is in flight answers TransactionInProgressException; once it is done, the same request succeeds without applying',
    pinnedBy:
      'answers the same ClientRequestToken in flight with TransactionInProgressException, and once done succeeds without applying, whatever holds its items then',
  },
] as const;

describe('transaction conflicts: the rules the model takes from the documentation', () => {
  it('pins each rule no emulator implements with a unit test of the model that exists', () => {
    const unitTests = readFileSync(
      new URL('../unit/sim/ItemHolds.test.ts', import.meta.url),
      'utf8',
    );
    const missing = DOCUMENTED_ONLY.filter(({ pinnedBy }) => !unitTests.includes(`'${pinnedBy}'`));

    expect(missing.map(({ rule }) => rule)).toEqual([]);
  });
});

describe.each(dynamoTargets())('transaction conflicts on $name', (target) => {
  let client: DynamoDBDocumentClient;
  let close: () => void;
  let table = '';

  beforeAll(async () => {
    ({ client, close } = target.connect());
    table = await createTable(client, 'conflicts', [['pk', 'S', 'HASH']]);
  });
  afterAll(async () => {
    await deleteTables(client, [table]);
    close();
  });

  const add = (pk: string): NonNullable<TransactWriteCommandInput['TransactItems']>[number] => ({
    Update: {
      TableName: table,
      Key: { pk },
      UpdateExpression: 'ADD n :one',
      ExpressionAttributeValues: { ':one': 1 },
    },
  });
  const transact = (TransactItems: TransactWriteCommandInput['TransactItems']) =>
    client.send(new TransactWriteCommand({ TransactItems }));
  const countOf = async (pk: string) =>
    (await client.send(new GetCommand({ TableName: table, Key: { pk }, ConsistentRead: true })))
      .Item?.n;

  it('applies a same-item pair of transactions sent one after the other, without conflict', async () => {
    const pk = uniqueKey();

    await transact([add(pk), add(uniqueKey())]);
    await transact([add(pk)]);

    expect(await countOf(pk)).toBe(2);
  });

  it('applies concurrent transactions and writes on one item one after another, never answering TransactionConflict (the emulators implement no conflicts; the model only given a world’s time)', async () => {
    const pk = uniqueKey();
    const update = new UpdateCommand({
      TableName: table,
      Key: { pk },
      UpdateExpression: 'ADD n :one',
      ExpressionAttributeValues: { ':one': 1 },
    });

    const results = await Promise.allSettled([
      ...Array.from({ length: 8 }, () => transact([add(pk), add(uniqueKey())])),
      client.send(update),
      client.send(update),
    ]);

    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    expect(await countOf(pk)).toBe(10);
  });

  it('answers a cancelled transaction in the shape the model’s conflict cancellation copies: TransactionCanceledException, a 400, one reason per item in order, the codes in its message', async () => {
    const [a, b, c] = [uniqueKey(), uniqueKey(), uniqueKey()];
    const refused = await caught(
      transact([
        add(a),
        {
          ConditionCheck: {
            TableName: table,
            Key: { pk: b },
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
        add(c),
      ]),
    );

    const conflict = await modelledConflict();

    expect(shapeOf(conflict)).toEqual(shapeOf(refused));
    expect(conflict.CancellationReasons).toEqual([
      { Code: 'None' },
      { Code: 'TransactionConflict', Message: expect.any(String) },
      { Code: 'None' },
    ]);
    const reasons = (conflict as CaughtError & TransactionCanceledException).CancellationReasons;
    expect(transientReasonOf(reasons ?? [])).toBe(TransientReason.TransactionConflict);
  });
});

/**
 * The model's cancellation of a transaction whose second item another transaction in flight
 * holds, through the document client as a world sends it.
 */
async function modelledConflict(): Promise<CaughtError> {
  const dynamo = new SimDynamoDB();
  dynamo.createTable({
    TableName: 'held',
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
  });
  const at = (nowMillis: number) => ({ nowMillis, holdMillis: 20 });
  dynamo.transactWriteItems(
    { TransactItems: [{ Put: { TableName: 'held', Item: { pk: { S: 'b' } } } }] },
    at(0),
  );
  const client = new SimDocumentClient({
    dynamo,
    transport: async (operation) => operation.apply(at(10)),
  });
  const put = (pk: string) => ({ Put: { TableName: 'held', Item: { pk } } });
  return caught(
    client.send(new TransactWriteCommand({ TransactItems: [put('a'), put('b'), put('c')] })),
  );
}

/** What a caller can tell of a cancellation besides its codes. */
function shapeOf(error: CaughtError) {
  const cancelled = error as CaughtError & TransactionCanceledException;
  const codes = (cancelled.CancellationReasons ?? []).map((reason) => reason.Code);
  return {
    name: cancelled.name,
    fault: cancelled.$fault,
    status: cancelled.$metadata?.httpStatusCode,
    message: cancelled.message.replace(`[${codes.join(', ')}]`, '[codes]'),
    reasonKeys: (cancelled.CancellationReasons ?? []).map((reason) =>
      Object.keys(reason)
        .filter((key) => reason[key as keyof typeof reason] !== undefined)
        .sort(),
    ),
  };
}
