/**
 * DynamoDB's transaction-conflict rules as the simulator models them (src/testing/dynamo/ItemHolds.ts),
 * taken from the developer guide because no emulator implements them; the conformance suite
 * (test/integration/transactionConflicts.test.ts) checks what the emulators can show.
 */
import {
  TransactionCanceledException,
  TransactionConflictException,
  TransactionInProgressException,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { transientReasonOf, translate } from '../../../src/aws/dynamoDBErrors.js';
import { TransientReason } from '../../../src/errors.js';
import { TransientStoreError } from '../../../src/index.js';
import { SimDocumentClient } from '../../../src/testing/dynamo/SimDocumentClient.js';
import { N, S, simWithTables, thrown } from './simFixture.js';

const put = (pk: string): TransactWriteItem => ({ Put: { TableName: 't', Item: { pk: S(pk) } } });
const add = (pk: string): TransactWriteItem => ({
  Update: {
    TableName: 't',
    Key: { pk: S(pk) },
    UpdateExpression: 'ADD n :one',
    ExpressionAttributeValues: { ':one': N('1') },
  },
});
/** A transaction applied at 100 ms that holds its items for 20 ms: until 120 ms, exclusive. */
const HELD = { nowMillis: 100, holdMillis: 20 };
const at = (nowMillis: number) => ({ nowMillis, holdMillis: 20 });

function heldWorld() {
  const dynamo = simWithTables();
  dynamo.transactWriteItems({ TransactItems: [put('a'), add('b')] }, HELD);
  return dynamo;
}

describe('SimDynamoDB transaction conflicts (documented rules, no emulator)', () => {
  it('cancels a second transaction that touches a held item, with TransactionConflict at that item only, and applies nothing', () => {
    const dynamo = heldWorld();
    const changes = dynamo.changes.length;

    const error = thrown(() =>
      dynamo.transactWriteItems({ TransactItems: [put('c'), add('b'), put('d')] }, at(110)),
    );

    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect(error.CancellationReasons).toEqual([
      { Code: 'None' },
      { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' },
      { Code: 'None' },
    ]);
    expect(dynamo.changes).toHaveLength(changes);
    expect(dynamo.getItem({ TableName: 't', Key: { pk: S('c') } }).Item).toBeUndefined();
    expect(dynamo.transactionConflicts).toBe(1);
  });

  it('names every held item of a cancelled transaction, a ConditionCheck’s too', () => {
    const dynamo = heldWorld();
    const check: TransactWriteItem = {
      ConditionCheck: {
        TableName: 't',
        Key: { pk: S('a') },
        ConditionExpression: 'attribute_exists(pk)',
      },
    };

    const error = thrown(() =>
      dynamo.transactWriteItems({ TransactItems: [add('b'), put('c'), check] }, at(119)),
    );

    expect((error.CancellationReasons as Array<{ Code: string }>).map((r) => r.Code)).toEqual([
      'TransactionConflict',
      'None',
      'TransactionConflict',
    ]);
  });

  it('answers a PutItem, UpdateItem or DeleteItem of a held item with TransactionConflictException, which the library retries as a conflict', () => {
    const dynamo = heldWorld();
    const writes = [
      () => dynamo.putItem({ TableName: 't', Item: { pk: S('a'), v: S('x') } }, at(105)),
      () =>
        dynamo.updateItem(
          {
            TableName: 't',
            Key: { pk: S('b') },
            UpdateExpression: 'SET v = :v',
            ExpressionAttributeValues: { ':v': S('x') },
          },
          at(105),
        ),
      () => dynamo.deleteItem({ TableName: 't', Key: { pk: S('a') } }, at(105)),
    ];

    for (const write of writes) {
      const error = thrown(write);
      expect(error).toBeInstanceOf(TransactionConflictException);
      expect(translate(error)).toBeInstanceOf(TransientStoreError);
      expect(translate(error)).toMatchObject({ reason: TransientReason.TransactionConflict });
    }
    expect(dynamo.getItem({ TableName: 't', Key: { pk: S('a') } }).Item).toEqual({ pk: S('a') });
    expect(dynamo.transactionConflicts).toBe(3);
  });

  it('applies once the hold has ended, at its service time', () => {
    const dynamo = heldWorld();

    dynamo.transactWriteItems({ TransactItems: [add('b')] }, at(120));
    dynamo.putItem({ TableName: 't', Item: { pk: S('a'), v: S('x') } }, at(120));

    expect(dynamo.getItem({ TableName: 't', Key: { pk: S('b') } }).Item).toEqual({
      pk: S('b'),
      n: N('2'),
    });
    expect(dynamo.transactionConflicts).toBe(0);
  });

  it('never refuses a read of a held item: GetItem and BatchGetItem see it', () => {
    const dynamo = heldWorld();

    expect(dynamo.getItem({ TableName: 't', Key: { pk: S('b') } }).Item).toEqual({
      pk: S('b'),
      n: N('1'),
    });
    expect(
      dynamo.batchGetItem({ RequestItems: { t: { Keys: [{ pk: S('a') }, { pk: S('b') }] } } })
        .Responses?.t,
    ).toHaveLength(2);
  });

  it('holds nothing for a single-item write, a cancelled transaction, or a request given no time', () => {
    const dynamo = simWithTables();
    dynamo.putItem({ TableName: 't', Item: { pk: S('a') } }, at(100));
    const refused = {
      Put: { TableName: 't', Item: { pk: S('b') }, ConditionExpression: 'attribute_exists(pk)' },
    };
    thrown(() => dynamo.transactWriteItems({ TransactItems: [refused] }, at(100)));
    dynamo.transactWriteItems({ TransactItems: [put('c')] });

    dynamo.transactWriteItems({ TransactItems: [add('a'), put('b'), add('c')] }, at(101));

    expect(dynamo.transactionConflicts).toBe(0);
  });

  it('tells a held item by table and full key: a Put’s key from the schema, another sort key is another item', () => {
    const dynamo = simWithTables();
    const item = (sk: string) => ({
      Put: { TableName: 'sorted', Item: { pk: S('p'), sk: N(sk), v: S('x') } },
    });
    dynamo.transactWriteItems({ TransactItems: [item('1')] }, at(100));

    dynamo.transactWriteItems({ TransactItems: [item('2')] }, at(101));
    const sameKey = {
      Update: {
        TableName: 'sorted',
        Key: { sk: N('1.0'), pk: S('p') },
        UpdateExpression: 'SET v = :v',
        ExpressionAttributeValues: { ':v': S('y') },
      },
    };
    const error = thrown(() => dynamo.transactWriteItems({ TransactItems: [sameKey] }, at(102)));

    expect(error.CancellationReasons).toEqual([
      { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' },
    ]);
  });

  it('answers the same ClientRequestToken in flight with TransactionInProgressException, and once done succeeds without applying, whatever holds its items then', () => {
    const dynamo = simWithTables();
    const input = { TransactItems: [add('a')], ClientRequestToken: 'token-1' };
    dynamo.transactWriteItems(input, at(100));

    const inFlight = thrown(() => dynamo.transactWriteItems(input, at(110)));
    dynamo.transactWriteItems({ TransactItems: [add('a')] }, at(125));
    dynamo.transactWriteItems(input, at(130));

    expect(inFlight).toBeInstanceOf(TransactionInProgressException);
    expect(translate(inFlight)).toMatchObject({ reason: TransientReason.TransactionConflict });
    expect(dynamo.getItem({ TableName: 't', Key: { pk: S('a') } }).Item?.n).toEqual(N('2'));
    expect(
      thrown(() => dynamo.transactWriteItems({ ...input, TransactItems: [add('b')] }, at(130)))
        .name,
    ).toBe('IdempotentParameterMismatchException');
  });

  it('logs each refusal for a held item with when, which operation, who sent it and who held the item', () => {
    const dynamo = simWithTables();
    dynamo.transactWriteItems({ TransactItems: [put('a')] }, { ...at(100), by: 'first' });
    dynamo.transactWriteItems({ TransactItems: [put('b')] }, at(100));

    thrown(() =>
      dynamo.transactWriteItems(
        { TransactItems: [add('b'), add('a')] },
        { ...at(105), by: 'second' },
      ),
    );
    thrown(() => dynamo.deleteItem({ TableName: 't', Key: { pk: S('a') } }, at(106)));
    dynamo.transactWriteItems({ TransactItems: [add('a')], ClientRequestToken: 'x' }, at(200));
    thrown(() =>
      dynamo.transactWriteItems({ TransactItems: [add('a')], ClientRequestToken: 'x' }, at(201)),
    );

    expect(dynamo.conflictLog).toEqual([
      {
        atMillis: 105,
        operation: 'TransactWriteItems',
        by: 'second',
        heldBy: [undefined, 'first'],
      },
      { atMillis: 106, operation: 'DeleteItem', by: undefined, heldBy: ['first'] },
    ]);
    expect(dynamo.transactionConflicts).toBe(2);
  });

  it('reaches the writes through the document client when a transport gives the time', async () => {
    const dynamo = heldWorld();
    const client = new SimDocumentClient({
      dynamo,
      transport: async (operation) => operation.apply(at(110)),
    });

    const error = await client
      .send(
        new TransactWriteCommand({
          TransactItems: [{ Put: { TableName: 't', Item: { pk: 'a' } } }],
        }),
      )
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(TransactionCanceledException);
    const reasons = (error as TransactionCanceledException).CancellationReasons ?? [];
    expect(transientReasonOf(reasons)).toBe(TransientReason.TransactionConflict);
  });
});
