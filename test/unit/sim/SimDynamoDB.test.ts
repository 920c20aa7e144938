import {
  ConditionalCheckFailedException,
  ProvisionedThroughputExceededException,
  ResourceInUseException,
  ResourceNotFoundException,
  ThrottlingException,
  TransactionCanceledException,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { translate } from '../../../src/aws/dynamoDBErrors.js';
import { TransientReason } from '../../../src/errors.js';
import { TransientStoreError } from '../../../src/index.js';
import { SimDynamoDB } from '../../../src/testing/dynamo/SimDynamoDB.js';
import { N, S, simWithTables, thrown } from './simFixture.js';

const put = (pk: string, extra = {}): TransactWriteItem => ({
  Put: { TableName: 't', Item: { pk: S(pk), ...extra } },
});

describe('SimDynamoDB tables', () => {
  it('refuses a key schema without HASH first, or with undefined or extra definitions', () => {
    const dynamo = new SimDynamoDB();
    const create = (KeySchema: object[], AttributeDefinitions: object[]) =>
      thrown(() => dynamo.createTable({ TableName: 'x', KeySchema, AttributeDefinitions } as never))
        .message;
    const pk = { AttributeName: 'pk', AttributeType: 'S' };
    expect(create([{ AttributeName: 'pk', KeyType: 'RANGE' }], [pk])).toBe(
      'Invalid KeySchema: The first KeySchemaElement is not a HASH key type',
    );
    expect(
      create(
        [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'pk', KeyType: 'HASH' },
        ],
        [pk],
      ),
    ).toMatch(/second KeySchemaElement is not a RANGE/);
    expect(create([{ AttributeName: 'id', KeyType: 'HASH' }], [pk])).toMatch(
      /Some index key attributes are not defined in AttributeDefinitions\. Keys: \[id\]/,
    );
    expect(
      create(
        [{ AttributeName: 'pk', KeyType: 'HASH' }],
        [pk, { AttributeName: 'x', AttributeType: 'S' }],
      ),
    ).toMatch(/Number of attributes in KeySchema does not exactly match/);
  });

  it('answers a second CreateTable with ResourceInUseException and a missing table with ResourceNotFoundException', () => {
    const dynamo = simWithTables();
    const create = () =>
      dynamo.createTable({
        TableName: 't',
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      });
    expect(thrown(create)).toBeInstanceOf(ResourceInUseException);
    expect(thrown(() => dynamo.describeTable({ TableName: 'nope' }))).toMatchObject({
      message: 'Requested resource not found: Table: nope not found',
    });
    expect(thrown(() => dynamo.getItem({ TableName: 'nope', Key: { pk: S('a') } }))).toBeInstanceOf(
      ResourceNotFoundException,
    );
  });

  it('describes a deleted table as DELETING and then no longer finds it', () => {
    const dynamo = simWithTables();
    expect(dynamo.deleteTable({ TableName: 't' }).TableDescription?.TableStatus).toBe('DELETING');
    expect(thrown(() => dynamo.describeTable({ TableName: 't' }))).toBeInstanceOf(
      ResourceNotFoundException,
    );
  });

  it('finds tables by ARN in transactions too', () => {
    const dynamo = simWithTables();
    dynamo.transactWriteItems({
      TransactItems: [
        {
          Put: {
            TableName: 'arn:aws:dynamodb:eu-west-1:123456789012:table/t',
            Item: { pk: S('a') },
          },
        },
      ],
    });
    expect(dynamo.getItem({ TableName: 't', Key: { pk: S('a') } }).Item).toEqual({ pk: S('a') });
  });

  it('refuses a ClientRequestToken DynamoDB would refuse: over 36 characters', () => {
    const dynamo = simWithTables();
    expect(() =>
      dynamo.transactWriteItems({ TransactItems: [put('a')], ClientRequestToken: 'x'.repeat(37) }),
    ).toThrow(/clientRequestToken/);
  });

  it('refuses parameters it does not model, naming them', () => {
    const dynamo = simWithTables();
    expect(() =>
      dynamo.getItem({ TableName: 't', Key: { pk: S('a') }, AttributesToGet: ['a'] }),
    ).toThrow(/does not model AttributesToGet of GetItem/);
    expect(() =>
      dynamo.transactWriteItems({ TransactItems: [put('a')], ReturnValues: 'ALL_OLD' } as never),
    ).toThrow(/does not model ReturnValues of TransactWriteItems/);
    expect(() =>
      dynamo.createTable({ TableName: 'g', StreamSpecification: { StreamEnabled: true } } as never),
    ).toThrow(/StreamSpecification/);
  });
});

describe('SimDynamoDB items', () => {
  it.each([
    [
      'two types in one value',
      { x: { S: 'a', N: '1' } },
      'Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes',
    ],
    [
      'no type',
      { x: {} },
      'Supplied AttributeValue is empty, must contain exactly one of the supported datatypes',
    ],
    [
      'an empty string set',
      { x: { SS: [] } },
      'One or more parameter values were invalid: An string set  may not be empty',
    ],
    [
      'an empty number set',
      { x: { NS: [] } },
      'One or more parameter values were invalid: An number set  may not be empty',
    ],
    [
      'an empty binary set',
      { x: { BS: [] } },
      'One or more parameter values were invalid: Binary sets should not be empty',
    ],
    [
      'a string set with duplicates',
      { x: { SS: ['a', 'a'] } },
      'One or more parameter values were invalid: Input collection [a, a] contains duplicates',
    ],
    [
      'a number set with equal numbers',
      { x: { NS: ['1', '1.0'] } },
      'One or more parameter values were invalid: Input collection [1, 1.0] contains duplicates',
    ],
    [
      'a binary set with duplicates',
      { x: { BS: [new Uint8Array([1]), new Uint8Array([1])] } },
      'One or more parameter values were invalid: Input collection [1, 1] contains duplicates',
    ],
    [
      'NULL false',
      { x: { NULL: false } },
      'One or more parameter values were invalid: Null attribute value types must have the value of true',
    ],
    [
      'a number that is no number',
      { x: { N: 'abc' } },
      'The parameter cannot be converted to a numeric value: abc',
    ],
    [
      'an empty binary key',
      { pk: { B: new Uint8Array() } },
      'One or more parameter values were invalid: Type mismatch for key pk expected: S actual: B',
    ],
  ])('refuses an item with %s', (_case, attributes, message) => {
    const dynamo = simWithTables();
    expect(
      thrown(() =>
        dynamo.putItem({ TableName: 't', Item: { pk: S('a'), ...attributes } as never }),
      ),
    ).toMatchObject({ name: 'ValidationException', message });
  });

  it('uses real DynamoDB wording for keys that do not fit (Local words them differently)', () => {
    const dynamo = simWithTables();
    expect(thrown(() => dynamo.getItem({ TableName: 't', Key: { id: S('a') } })).message).toBe(
      'The provided key element does not match the schema',
    );
    expect(
      thrown(() => dynamo.putItem({ TableName: 'sorted', Item: { pk: S('a') } })).message,
    ).toBe('One or more parameter values were invalid: Missing the key sk in the item');
    expect(thrown(() => dynamo.putItem({ TableName: 't', Item: { pk: N('1') } })).message).toBe(
      'One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N',
    );
  });

  it('finds an item by a numeric key written another way', () => {
    const dynamo = simWithTables();
    dynamo.putItem({ TableName: 'sorted', Item: { pk: S('a'), sk: N('1.0'), v: S('x') } });
    expect(dynamo.getItem({ TableName: 'sorted', Key: { pk: S('a'), sk: N('1') } }).Item).toEqual({
      pk: S('a'),
      sk: N('1'),
      v: S('x'),
    });
  });

  it('stores a frozen copy: neither the caller’s later changes nor a reader can alter it', () => {
    const dynamo = simWithTables();
    const item = { pk: S('a'), m: { M: { k: S('v') } } };
    dynamo.putItem({ TableName: 't', Item: item });
    item.m.M.k = S('changed');
    const stored = dynamo.getItem({ TableName: 't', Key: { pk: S('a') } }).Item;
    expect(stored?.m).toEqual({ M: { k: S('v') } });
    expect(Object.isFrozen(stored?.m?.M)).toBe(true);
  });

  it('refuses a BatchGetItem of more than 100 keys or of none', () => {
    const dynamo = simWithTables();
    const keys = (count: number) => Array.from({ length: count }, (_, at) => ({ pk: S(`k${at}`) }));
    expect(
      thrown(() => dynamo.batchGetItem({ RequestItems: { t: { Keys: keys(101) } } })).message,
    ).toBe('Too many items requested for the BatchGetItem call');
    expect(
      thrown(() => dynamo.batchGetItem({ RequestItems: { t: { Keys: [] } } })).message,
    ).toMatch(/Member must have length greater than or equal to 1/);
  });

  it('answers a failed single-item condition with the SDK class', () => {
    const dynamo = simWithTables();
    dynamo.putItem({ TableName: 't', Item: { pk: S('a') } });
    const error = thrown(() =>
      dynamo.putItem({
        TableName: 't',
        Item: { pk: S('a') },
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    expect(error).toBeInstanceOf(ConditionalCheckFailedException);
    expect(error.Item).toEqual({ pk: S('a') });
  });
});

describe('SimDynamoDB request checks', () => {
  it('describes a table with its ARN and billing mode', () => {
    const dynamo = new SimDynamoDB();
    dynamo.createTable({
      TableName: 'b',
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'B' }],
    });
    expect(dynamo.describeTable({ TableName: 'b' }).Table).toMatchObject({
      TableArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/b',
      BillingModeSummary: { BillingMode: 'PAY_PER_REQUEST' },
    });
    expect(
      thrown(() => dynamo.putItem({ TableName: 'b', Item: { id: { B: new Uint8Array() } } }))
        .message,
    ).toBe(
      'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: id',
    );
  });

  it.each([
    ['empty names', { ExpressionAttributeNames: {} }, 'ExpressionAttributeNames must not be empty'],
    [
      'names without an expression',
      { ExpressionAttributeNames: { '#a': 'a' } },
      'ExpressionAttributeNames can only be specified when using expressions',
    ],
    [
      'two unused values',
      {
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':a': S('1'), ':b': S('2') },
      },
      'Value provided in ExpressionAttributeValues unused in expressions: keys: {:a, :b}',
    ],
    [
      'ReturnValues UPDATED_NEW',
      { ReturnValues: 'UPDATED_NEW' },
      'Return values set to invalid value',
    ],
  ])('refuses a PutItem with %s', (_case, parameters, message) => {
    const dynamo = simWithTables();
    expect(
      thrown(() => dynamo.putItem({ TableName: 't', Item: { pk: S('a') }, ...parameters } as never))
        .message,
    ).toBe(message);
  });

  it('returns nothing with ALL_OLD or UPDATED_OLD for an item the update creates', () => {
    const dynamo = simWithTables();
    const update = (pk: string, ReturnValues: 'ALL_OLD' | 'UPDATED_OLD') =>
      dynamo.updateItem({
        TableName: 't',
        Key: { pk: S(pk) },
        UpdateExpression: 'SET n = :v',
        ExpressionAttributeValues: { ':v': N('1') },
        ReturnValues,
      });
    expect([update('a', 'ALL_OLD'), update('b', 'UPDATED_OLD')]).toEqual([{}, {}]);
    expect(
      thrown(() =>
        dynamo.deleteItem({ TableName: 't', Key: { pk: S('a') }, ReturnValues: 'ALL_NEW' }),
      ).message,
    ).toBe('Return values set to invalid value');
  });

  it('ignores the capacity and metrics parameters it does not model', () => {
    const dynamo = simWithTables();
    expect(
      dynamo.getItem({
        TableName: 't',
        Key: { pk: S('a') },
        ReturnConsumedCapacity: 'TOTAL',
        ConsistentRead: true,
      }),
    ).toEqual({});
  });

  it('counts keys and values of updates toward the 4 MB of a transaction', () => {
    const dynamo = simWithTables();
    const updates = Array.from({ length: 11 }, (_, at) => ({
      Update: {
        TableName: 't',
        Key: { pk: S(`k${at}`) },
        UpdateExpression: 'SET x = :v',
        ExpressionAttributeValues: { ':v': S('x'.repeat(390 * 1024)) },
      },
    }));
    expect(thrown(() => dynamo.transactWriteItems({ TransactItems: updates })).message).toMatch(
      /^Transaction payload size cannot exceed 4MB\. Payload Size: \d+$/,
    );
  });
});

describe('SimDynamoDB transactions', () => {
  it('refuses a ConditionCheck and a write on one item (DynamoDB Local allows it; DynamoDB does not)', () => {
    const dynamo = simWithTables();
    const check = {
      ConditionCheck: {
        TableName: 't',
        Key: { pk: S('a') },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
    expect(
      thrown(() => dynamo.transactWriteItems({ TransactItems: [put('a'), check] })).message,
    ).toBe('Transaction request cannot include multiple operations on one item');
  });

  it('refuses a transaction item whose key does not fit the schema (MiniStack applies it)', () => {
    const dynamo = simWithTables();
    expect(
      thrown(() =>
        dynamo.transactWriteItems({
          TransactItems: [{ Put: { TableName: 't', Item: { id: S('a') } } }],
        }),
      ).message,
    ).toBe('One or more parameter values were invalid: Missing the key pk in the item');
  });

  it('cancels with a ValidationError reason when an update cannot apply (DynamoDB Local throws instead)', () => {
    const dynamo = simWithTables();
    const error = thrown(() =>
      dynamo.transactWriteItems({
        TransactItems: [
          put('b'),
          {
            Update: {
              TableName: 't',
              Key: { pk: S('a') },
              UpdateExpression: 'SET q = q + :v',
              ExpressionAttributeValues: { ':v': N('1') },
            },
          },
        ],
      }),
    );
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect(error.CancellationReasons).toEqual([
      { Code: 'None' },
      {
        Code: 'ValidationError',
        Message: 'The provided expression refers to an attribute that does not exist in the item',
      },
    ]);
    expect(dynamo.changes).toEqual([]);
  });

  it.each([
    [
      'a ConditionCheck without a condition',
      { ConditionCheck: { TableName: 't', Key: { pk: S('a') } } },
      /conditionExpression' failed to satisfy constraint: Member must not be null/,
    ],
    [
      'an Update without an update expression',
      { Update: { TableName: 't', Key: { pk: S('a') } } },
      /updateExpression' failed to satisfy constraint: Member must not be null/,
    ],
    [
      'an item of two kinds',
      { ...put('a'), Delete: { TableName: 't', Key: { pk: S('a') } } },
      /^TransactItems can only contain one of Check, Put, Update or Delete$/,
    ],
    [
      'an item of no kind',
      {},
      /^TransactItems can only contain one of Check, Put, Update or Delete$/,
    ],
  ])('refuses %s', (_case, item, message) => {
    const dynamo = simWithTables();
    expect(
      thrown(() => dynamo.transactWriteItems({ TransactItems: [item as TransactWriteItem] }))
        .message,
    ).toMatch(message);
  });

  it('evaluates every condition against the items as they were before the transaction', () => {
    const dynamo = simWithTables();
    const absent = {
      ConditionCheck: {
        TableName: 't',
        Key: { pk: S('b') },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
    dynamo.transactWriteItems({
      TransactItems: [
        put('a'),
        absent,
        { Put: { TableName: 'sorted', Item: { pk: S('b'), sk: N('1') } } },
      ],
    });
    expect(dynamo.changes.map((change) => change.tableName)).toEqual(['t', 'sorted']);
  });
});

describe('SimDynamoDB change log', () => {
  it('records one change per written item, sharing the transaction id, none for a ConditionCheck', () => {
    const dynamo = simWithTables();
    dynamo.putItem({ TableName: 't', Item: { pk: S('c') } });
    dynamo.transactWriteItems({
      TransactItems: [
        put('a', { n: N('1') }),
        { Delete: { TableName: 't', Key: { pk: S('c') } } },
        {
          ConditionCheck: {
            TableName: 't',
            Key: { pk: S('zz') },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
    });
    expect(dynamo.changes).toEqual([
      {
        sequence: 1,
        tableName: 't',
        keys: { pk: S('c') },
        newImage: { pk: S('c') },
        cause: 'write',
      },
      {
        sequence: 2,
        tableName: 't',
        keys: { pk: S('a') },
        newImage: { pk: S('a'), n: N('1') },
        transactionId: 'tx-1',
        cause: 'write',
      },
      {
        sequence: 3,
        tableName: 't',
        keys: { pk: S('c') },
        oldImage: { pk: S('c') },
        transactionId: 'tx-1',
        cause: 'write',
      },
    ]);
  });

  it('records nothing for a write that changes nothing, a cancelled transaction or a failed condition', () => {
    const dynamo = simWithTables();
    dynamo.putItem({ TableName: 't', Item: { pk: S('a'), n: N('1') } });
    dynamo.putItem({ TableName: 't', Item: { pk: S('a'), n: N('1.0') } });
    dynamo.deleteItem({ TableName: 't', Key: { pk: S('absent') } });
    thrown(() =>
      dynamo.putItem({
        TableName: 't',
        Item: { pk: S('a') },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    thrown(() =>
      dynamo.transactWriteItems({
        TransactItems: [
          put('b'),
          {
            ConditionCheck: {
              TableName: 't',
              Key: { pk: S('a') },
              ConditionExpression: 'n > :v',
              ExpressionAttributeValues: { ':v': N('5') },
            },
          },
        ],
      }),
    );
    expect(dynamo.changes.map((change) => change.sequence)).toEqual([1]);
  });

  it('is the same for the same operations: no clock, no randomness', () => {
    const run = () => {
      const dynamo = simWithTables();
      dynamo.transactWriteItems({ TransactItems: [put('a'), put('b')] });
      dynamo.updateItem({
        TableName: 't',
        Key: { pk: S('a') },
        UpdateExpression: 'ADD n :v',
        ExpressionAttributeValues: { ':v': N('1') },
      });
      return JSON.stringify(dynamo.changes);
    };
    expect(run()).toBe(run());
  });
});

describe('SimDynamoDB time to live', () => {
  const withTtl = () => {
    const dynamo = simWithTables();
    dynamo.updateTimeToLive({
      TableName: 't',
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
    return dynamo;
  };
  const NOW = 1_800_000_000;

  it('refuses to enable TTL twice, on another attribute, or to disable it twice (as DynamoDB Local does)', () => {
    const dynamo = withTtl();
    const ttl = (AttributeName: string, Enabled: boolean) =>
      thrown(() =>
        dynamo.updateTimeToLive({
          TableName: 't',
          TimeToLiveSpecification: { AttributeName, Enabled },
        }),
      ).message;
    expect(ttl('expiresAt', true)).toBe('TimeToLive is already enabled');
    expect(ttl('other', true)).toBe('TimeToLive is active on a different AttributeName');
    dynamo.updateTimeToLive({
      TableName: 't',
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: false },
    });
    expect(dynamo.describeTimeToLive({ TableName: 't' }).TimeToLiveDescription).toEqual({
      TimeToLiveStatus: 'DISABLED',
    });
    expect(ttl('expiresAt', false)).toBe('TimeToLive is already disabled');
  });

  it('lists items whose TTL number is before now — not at now, not a string, not over five years old', () => {
    const dynamo = withTtl();
    const item = (pk: string, expiresAt: object) =>
      dynamo.putItem({ TableName: 't', Item: { pk: S(pk), expiresAt } as never });
    item('expired', N(String(NOW - 1)));
    item('now', N(String(NOW)));
    item('text', S(String(NOW - 1)));
    item('ancient', N(String(NOW - 6 * 365 * 24 * 3600)));
    dynamo.putItem({ TableName: 't', Item: { pk: S('none') } });
    expect(dynamo.expiredItems('t', NOW).map((found) => found.pk?.S)).toEqual(['expired']);
  });

  it('lists nothing while TTL is disabled', () => {
    const dynamo = simWithTables();
    dynamo.putItem({ TableName: 't', Item: { pk: S('a'), expiresAt: N('1') } });
    expect(dynamo.expiredItems('t', NOW)).toEqual([]);
  });

  it('keeps an expired item readable until the world deletes it, then logs a ttl change', () => {
    const dynamo = withTtl();
    dynamo.putItem({ TableName: 't', Item: { pk: S('a'), expiresAt: N(String(NOW - 10)) } });
    const [expired] = dynamo.expiredItems('t', NOW);
    expect(dynamo.getItem({ TableName: 't', Key: { pk: S('a') } }).Item).toEqual(expired);
    expect(dynamo.deleteExpired('t', expired ?? {}, NOW)).toBe(true);
    expect(dynamo.getItem({ TableName: 't', Key: { pk: S('a') } }).Item).toBeUndefined();
    expect(dynamo.changes.at(-1)).toMatchObject({
      cause: 'ttl',
      keys: { pk: S('a') },
      oldImage: expired,
    });
    expect(dynamo.deleteExpired('t', { pk: S('a') })).toBe(false);
  });

  it('leaves an item rewritten with a later expiry when given now, deletes it without', () => {
    const dynamo = withTtl();
    dynamo.putItem({ TableName: 't', Item: { pk: S('a'), expiresAt: N(String(NOW + 10)) } });
    expect(dynamo.deleteExpired('t', { pk: S('a') }, NOW)).toBe(false);
    expect(dynamo.deleteExpired('t', { pk: S('a') })).toBe(true);
  });
});

describe('SimDynamoDB injected faults', () => {
  it('builds a TransactionCanceledException with the injected reason at its index, None elsewhere', () => {
    const dynamo = simWithTables();
    const input = { TransactItems: [put('a'), put('b'), put('c')] };
    const error = dynamo.cancelledBy(input, 1, 'TransactionConflict');
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect(error.message).toBe(
      'Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict, None]',
    );
    expect(error.CancellationReasons).toEqual([
      { Code: 'None' },
      { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' },
      { Code: 'None' },
    ]);
    expect(dynamo.cancelledBy(input, 0, 'ThrottlingError').CancellationReasons?.[0]?.Code).toBe(
      'ThrottlingError',
    );
    expect(dynamo.changes).toEqual([]);
  });

  it('refuses an index outside the transaction', () => {
    expect(() =>
      new SimDynamoDB().cancelledBy({ TransactItems: [put('a')] }, 1, 'ThrottlingError'),
    ).toThrow(RangeError);
  });

  it('throttles table operations with ThrottlingException and item operations with ProvisionedThroughputExceededException', () => {
    const dynamo = new SimDynamoDB();
    expect(dynamo.throttled('DescribeTable')).toBeInstanceOf(ThrottlingException);
    expect(dynamo.throttled('TransactWriteItems')).toBeInstanceOf(
      ProvisionedThroughputExceededException,
    );
  });

  it('makes faults the library treats as transient', () => {
    const dynamo = new SimDynamoDB();
    for (const fault of [dynamo.throttled('GetItem'), dynamo.throttled('DescribeTable')]) {
      expect(translate(fault)).toBeInstanceOf(TransientStoreError);
      expect(translate(fault)).toMatchObject({ reason: TransientReason.Throttling });
    }
  });
});
