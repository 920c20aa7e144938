/**
 * One suite, several DynamoDBs: the project's emulator (MiniStack under `integration`, DynamoDB
 * Local under `conformance`) and the simulator of src/testing/dynamo. Every test runs with the
 * same assertions on each target, so the simulator is held to what the emulators do. Where
 * the two emulators disagree, a test asserts only what both do and says what differs; the
 * simulator's own choice there is pinned by test/unit/sim. Kept in one file, as the
 * simulator's contract; case tables are in test/support/expressionCases.ts.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  NumberValue,
  PutCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isKeySchemaMismatch, translate } from '../../src/aws/dynamoDBErrors.js';
import { InboxStatus, inboxPk } from '../../src/constants/index.js';
import { TransactionLimit } from '../../src/errors.js';
import { BusinessConditionFailedError, DynamoDBInboxStore } from '../../src/index.js';
import { RESERVED_WORDS, SYNTAX_KEYWORDS } from '../../src/testing/dynamo/reservedWords.js';
import type { InboxEntry } from '../../src/types.js';
import {
  caught,
  createTable,
  deleteTables,
  dynamoTargets,
  holds,
  uniqueKey,
} from '../support/dynamoTargets.js';
import {
  CONDITION_CASES,
  CONDITION_ERRORS,
  CONDITION_ITEM,
  UPDATE_CASES,
  UPDATE_ERRORS,
  UPDATE_ITEM,
} from '../support/expressionCases.js';
import { ledgerAndInventoryRun } from '../support/referenceRun.js';

const NOW_EPOCH_SECONDS = Math.floor(Date.now() / 1000);
const KB = 1024;

describe.each(dynamoTargets())('DynamoDB semantics on $name', (target) => {
  let client: DynamoDBDocumentClient;
  let close: () => void;
  const t = { items: '', sorted: '', inbox: '', accounts: '', entries: '', stock: '', orders: '' };

  beforeAll(async () => {
    ({ client, close } = target.connect());
    const hash = (name: string) => [[name, 'S', 'HASH']] as const;
    [t.items, t.sorted, t.inbox, t.accounts, t.entries, t.stock, t.orders] = await Promise.all([
      createTable(client, 'items', hash('pk')),
      createTable(client, 'sorted', [
        ['pk', 'S', 'HASH'],
        ['sk', 'N', 'RANGE'],
      ]),
      createTable(client, 'inbox', hash('pk'), 'expiresAt'),
      createTable(client, 'accounts', hash('accountId')),
      createTable(client, 'entries', hash('paymentId')),
      createTable(client, 'stock', hash('sku')),
      createTable(client, 'orders', hash('orderId')),
    ]);
  });
  afterAll(async () => {
    await deleteTables(client, Object.values(t));
    close();
  });

  const put = (Item: Record<string, unknown>, TableName = t.items) =>
    client.send(new PutCommand({ TableName, Item }));
  const get = async (Key: Record<string, unknown>, TableName = t.items) =>
    (await client.send(new GetCommand({ TableName, Key, ConsistentRead: true }))).Item;
  const transact = (TransactItems: TransactWriteCommandInput['TransactItems']) =>
    client.send(new TransactWriteCommand({ TransactItems }));

  describe('tables', () => {
    it('describes a table as ACTIVE with its key schema, HASH first', async () => {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: t.sorted }));
      expect(Table).toMatchObject({
        TableName: t.sorted,
        TableStatus: 'ACTIVE',
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
      });
      expect(Table?.AttributeDefinitions).toEqual(
        expect.arrayContaining([
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'N' },
        ]),
      );
    });

    it('refuses to create a table that exists with ResourceInUseException', async () => {
      const create = new CreateTableCommand({
        TableName: t.items,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      });
      // Messages differ: "Cannot create preexisting table" (Local), "Table already exists: …".
      expect((await caught(client.send(create))).name).toBe('ResourceInUseException');
    });

    it('answers ResourceNotFoundException for a missing table, whatever the operation', async () => {
      const TableName = uniqueKey('missing');
      const Key = { pk: 'a' };
      const requests = [
        () => client.send(new GetCommand({ TableName, Key })),
        () => client.send(new PutCommand({ TableName, Item: Key })),
        () => client.send(new UpdateCommand({ TableName, Key, UpdateExpression: 'REMOVE a' })),
        () => client.send(new DeleteCommand({ TableName, Key })),
        () => client.send(new BatchGetCommand({ RequestItems: { [TableName]: { Keys: [Key] } } })),
        () =>
          client.send(
            new TransactWriteCommand({ TransactItems: [{ Put: { TableName, Item: Key } }] }),
          ),
        () => client.send(new DescribeTableCommand({ TableName })),
      ];
      // Messages differ: "Cannot do operations on a non-existent table" (Local), "Requested resource not found".
      for (const request of requests) {
        expect((await caught(request())).name).toBe('ResourceNotFoundException');
      }
    });

    it('reports TTL DISABLED until UpdateTimeToLive enables it on an attribute', async () => {
      const ttl = async (TableName: string) =>
        (await client.send(new DescribeTimeToLiveCommand({ TableName }))).TimeToLiveDescription;
      expect(await ttl(t.items)).toEqual({ TimeToLiveStatus: 'DISABLED' });
      expect(await ttl(t.inbox)).toEqual({
        TimeToLiveStatus: 'ENABLED',
        AttributeName: 'expiresAt',
      });
    });

    it('deletes a table, which is then not found', async () => {
      const name = await createTable(client, 'doomed', [['pk', 'S', 'HASH']]);
      await deleteTables(client, [name]);
      const error = await caught(client.send(new DescribeTableCommand({ TableName: name })));
      expect(error.name).toBe('ResourceNotFoundException');
    });
  });

  describe('items', () => {
    it('returns no Item for an absent key', async () => {
      expect(await get({ pk: uniqueKey() })).toBeUndefined();
    });

    it('stores every attribute type and returns it unchanged', async () => {
      const item = { ...CONDITION_ITEM, big: undefined, pk: uniqueKey() };
      await put(item);
      expect(await get({ pk: item.pk })).toEqual({ ...item, big: undefined });
    });

    it('normalizes numbers: leading and trailing zeros, exponents, negative zero', async () => {
      const pk = uniqueKey();
      const written = { a: '1.50', b: '-0', c: '1e3', d: '0012.000', e: '-0.0010' };
      await put({
        pk,
        ...Object.fromEntries(Object.entries(written).map(([k, v]) => [k, NumberValue.from(v)])),
      });
      expect(await get({ pk })).toEqual({ pk, a: 1.5, b: 0, c: 1000, d: 12, e: -0.001 });
    });

    it('refuses a number of more than 38 significant digits', async () => {
      const error = await caught(put({ pk: uniqueKey(), n: NumberValue.from('1'.repeat(39)) }));
      expect(error.name).toBe('ValidationException');
      expect(error.message).toMatch(/38/);
    });

    it.each([
      {
        shape: 'a string',
        fits: { x: 'x'.repeat(400 * KB - 4) },
        over: { x: 'x'.repeat(400 * KB - 3) },
      },
      {
        shape: 'a map (3 bytes, 1 per key)',
        fits: { m: { k: 'x'.repeat(400 * KB - 9) } },
        over: { m: { k: 'x'.repeat(400 * KB - 8) } },
      },
      {
        shape: 'a list (3 bytes, 1 per element)',
        fits: { l: ['x'.repeat(400 * KB - 8)] },
        over: { l: ['x'.repeat(400 * KB - 7)] },
      },
      {
        shape: 'a number (1 byte per 2 digits, plus 1)',
        fits: { n: 12345, x: 'x'.repeat(400 * KB - 9) },
        over: { n: 12345, x: 'x'.repeat(400 * KB - 8) },
      },
      {
        shape: 'the number 0 (no significant digit: 1 byte)',
        fits: { n: 0, x: 'x'.repeat(400 * KB - 6) },
        over: { n: 0, x: 'x'.repeat(400 * KB - 5) },
      },
    ])(
      'counts item size as DynamoDB does with $shape: 400 KB passes, 1 byte more fails',
      async ({ fits, over }) => {
        await put({ pk: 'a', ...fits });
        const error = await caught(put({ pk: 'a', ...over }));
        expect(error.message).toBe('Item size has exceeded the maximum allowed size');
        expect(translate(error)).toMatchObject({ limit: TransactionLimit.ItemBytes });
      },
    );

    it('finds a table by its ARN in PutItem and GetItem', async () => {
      const pk = uniqueKey();
      await put({ pk }, `arn:aws:dynamodb:us-east-1:000000000000:table/${t.items}`);
      expect(await get({ pk })).toEqual({ pk });
    });

    it.each([
      { request: 'a Get by another attribute', send: (c: Ctx) => c.get({ id: 'a' }) },
      { request: 'a Get with a number for a string key', send: (c: Ctx) => c.get({ pk: 1 }) },
      { request: 'a Get with an extra attribute', send: (c: Ctx) => c.get({ pk: 'a', x: 'y' }) },
      { request: 'a Get without the sort key', send: (c: Ctx) => c.get({ pk: 'a' }, c.t.sorted) },
      { request: 'a Put without the key', send: (c: Ctx) => c.put({ id: 'a' }) },
      { request: 'a Put with a number for a string key', send: (c: Ctx) => c.put({ pk: 1 }) },
      { request: 'a Put without the sort key', send: (c: Ctx) => c.put({ pk: 'a' }, c.t.sorted) },
    ])(
      'refuses $request in words the library recognises as a key schema mismatch',
      async ({ send }) => {
        const error = await caught(send({ get, put, t }));
        expect(error.name).toBe('ValidationException');
        expect(isKeySchemaMismatch(error)).toBe(true);
      },
    );

    it('refuses an empty string as a key value', async () => {
      const error = await caught(put({ pk: '' }));
      expect(error.message).toBe(
        'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk',
      );
    });

    it('returns the replaced and the deleted item with ALL_OLD, and nothing for an absent one', async () => {
      const pk = uniqueKey();
      const TableName = t.items;
      await put({ pk, a: 1 });
      const replaced = await client.send(
        new PutCommand({ TableName, Item: { pk, b: 2 }, ReturnValues: 'ALL_OLD' }),
      );
      const deleted = await client.send(
        new DeleteCommand({ TableName, Key: { pk }, ReturnValues: 'ALL_OLD' }),
      );
      const again = await client.send(
        new DeleteCommand({ TableName, Key: { pk }, ReturnValues: 'ALL_OLD' }),
      );
      expect([replaced.Attributes, deleted.Attributes, again.Attributes]).toEqual([
        { pk, a: 1 },
        { pk, b: 2 },
        undefined,
      ]);
    });

    it('refuses ReturnValues ALL_NEW on PutItem', async () => {
      const request = new PutCommand({
        TableName: t.items,
        Item: { pk: uniqueKey() },
        ReturnValues: 'ALL_NEW',
      });
      expect((await caught(client.send(request))).name).toBe('ValidationException');
    });

    it('answers a failed condition with the old item in wire form when ALL_OLD was asked', async () => {
      const pk = uniqueKey();
      await put({ pk, n: 1 });
      const error = await caught(
        client.send(
          new PutCommand({
            TableName: t.items,
            Item: { pk },
            ConditionExpression: 'attribute_not_exists(pk)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      );
      expect(error).toMatchObject({
        name: 'ConditionalCheckFailedException',
        message: 'The conditional request failed',
      });
      expect(error.Item).toEqual({ pk: { S: pk }, n: { N: '1' } });
    });

    it('answers a failed condition without Item for an absent item or when ALL_OLD was not asked', async () => {
      const pk = uniqueKey();
      const absent = await caught(
        client.send(
          new DeleteCommand({
            TableName: t.items,
            Key: { pk },
            ConditionExpression: 'attribute_exists(pk)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      );
      await put({ pk });
      const notAsked = await caught(
        client.send(
          new PutCommand({
            TableName: t.items,
            Item: { pk },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        ),
      );
      for (const error of [absent, notAsked]) {
        expect(error.name).toBe('ConditionalCheckFailedException');
        expect(error.Item).toBeUndefined();
      }
    });

    it('reads several keys in one BatchGetItem, leaving absent ones out', async () => {
      const [a, b] = [uniqueKey(), uniqueKey()];
      await put({ pk: a, n: 1 });
      const { Responses, UnprocessedKeys } = await client.send(
        new BatchGetCommand({
          RequestItems: { [t.items]: { Keys: [{ pk: a }, { pk: b }], ConsistentRead: true } },
        }),
      );
      expect(Responses).toEqual({ [t.items]: [{ pk: a, n: 1 }] });
      expect(UnprocessedKeys).toEqual({});
    });

    it('refuses a BatchGetItem that names one key twice', async () => {
      const Keys = [{ pk: 'a' }, { pk: 'a' }];
      const error = await caught(
        client.send(new BatchGetCommand({ RequestItems: { [t.items]: { Keys } } })),
      );
      expect(error.message).toBe('Provided list of item keys contains duplicates');
    });
  });

  describe('condition expressions', () => {
    it.each(CONDITION_CASES)('$behaviour', async ({ expression, values, names, expected }) => {
      expect(await holds(client, t.items, CONDITION_ITEM, { expression, values, names })).toBe(
        expected,
      );
    });

    it.each(CONDITION_ERRORS)(
      'refuses $behaviour',
      async ({ expression, values, names, message }) => {
        // On an existing item: MiniStack skips some operand checks when the item is absent.
        const pk = uniqueKey();
        await put({ pk, n: 1, s: 'x' });
        const request = new PutCommand({
          TableName: t.items,
          Item: { pk, n: 2 },
          ConditionExpression: expression,
          ExpressionAttributeValues: values,
          ExpressionAttributeNames: names,
        });
        const error = await caught(client.send(request));
        expect(error.name).toBe('ValidationException');
        expect(error.message).toMatch(message);
      },
    );

    it('refuses values given without any expression', async () => {
      const request = new PutCommand({
        TableName: t.items,
        Item: { pk: uniqueKey() },
        ExpressionAttributeValues: { ':x': 1 },
      });
      expect((await caught(client.send(request))).message).toMatch(
        /ExpressionAttributeValues can only be specified when using expressions/,
      );
    });

    it('refuses every reserved word the simulator lists as a bare attribute name', async () => {
      const refusal = async (word: string) => {
        const ConditionExpression = `attribute_not_exists(${word})`;
        const request = new PutCommand({
          TableName: t.items,
          Item: { pk: 'r' },
          ConditionExpression,
        });
        return (await caught(client.send(request))).message;
      };
      for (const word of [...RESERVED_WORDS].filter((w) => !SYNTAX_KEYWORDS.has(w))) {
        // MiniStack says "Invalid UpdateExpression" even in a condition; Local "ConditionExpression".
        expect(await refusal(word.toLowerCase()), word).toMatch(
          new RegExp(
            `^Invalid \\w+Expression: Attribute name is a reserved keyword; reserved keyword: ${word.toLowerCase()}$`,
          ),
        );
      }
    });

    it('refuses a grammar keyword as a bare attribute name', async () => {
      // Local: a syntax error for each; MiniStack: reserved for ADD, DELETE, SET, and it
      // accepts REMOVE (left out here).
      for (const word of [...SYNTAX_KEYWORDS]
        .filter((w) => w !== 'REMOVE')
        .map((w) => w.toLowerCase())) {
        const request = new PutCommand({
          TableName: t.items,
          Item: { pk: 'r' },
          ConditionExpression: `attribute_not_exists(${word})`,
        });
        expect((await caught(client.send(request))).message, word).toMatch(
          new RegExp(`Syntax error; token: "${word}"|reserved keyword: ${word}$`),
        );
      }
    });
  });

  describe('update expressions', () => {
    const update = async (
      pk: string,
      UpdateExpression: string,
      values?: Record<string, unknown>,
      names?: Record<string, string>,
    ) =>
      client.send(
        new UpdateCommand({
          TableName: t.items,
          Key: { pk },
          UpdateExpression,
          ExpressionAttributeValues: values,
          ExpressionAttributeNames: names,
          ReturnValues: 'ALL_NEW',
        }),
      );

    it.each(UPDATE_CASES)('$behaviour', async ({ update: expression, values, after, absent }) => {
      const pk = uniqueKey();
      if (!absent) await put({ ...UPDATE_ITEM, pk });
      const { Attributes } = await update(pk, expression, values);
      expect(Attributes).toEqual({ ...after, pk });
      expect(await get({ pk })).toEqual({ ...after, pk });
    });

    it.each(UPDATE_ERRORS)(
      'refuses $behaviour and changes nothing',
      async ({ update: expression, values, names, message }) => {
        const pk = uniqueKey();
        await put({ ...UPDATE_ITEM, pk });
        const error = await caught(update(pk, expression, values, names));
        expect(error.name).toBe('ValidationException');
        expect(error.message).toMatch(message);
        expect(await get({ pk })).toMatchObject({ n: 10, s: 'hello' });
      },
    );

    it('refuses an update that would grow the item past 400 KB', async () => {
      const pk = uniqueKey();
      await put({ pk, x: 'x'.repeat(300 * KB) });
      const error = await caught(update(pk, 'SET y = :v', { ':v': 'y'.repeat(200 * KB) }));
      expect(error.message).toBe('Item size to update has exceeded the maximum allowed size');
    });

    it('refuses two paths that overlap', async () => {
      // Local: "Two document paths overlap with each other…"; MiniStack: "The document path
      // provided in the update expression is invalid for update: a". Both refuse.
      const error = await caught(update(uniqueKey(), 'SET a = :v, a.b = :v', { ':v': 'w' }));
      expect(error.name).toBe('ValidationException');
    });

    it('returns only the updated paths with UPDATED_NEW and UPDATED_OLD', async () => {
      const pk = uniqueKey();
      await put({ ...UPDATE_ITEM, pk });
      const returned = async (
        UpdateExpression: string,
        ReturnValues: 'UPDATED_NEW' | 'UPDATED_OLD',
      ) =>
        (
          await client.send(
            new UpdateCommand({
              TableName: t.items,
              Key: { pk },
              UpdateExpression,
              ExpressionAttributeValues: UpdateExpression.includes(':v')
                ? { ':v': 'w' }
                : undefined,
              ReturnValues,
            }),
          )
        ).Attributes;
      // Local returns the whole top-level attribute of a nested path; MiniStack (and the
      // simulator) only the updated part: both hold the updated value under its attribute.
      const newM = await returned('SET m.k = :v', 'UPDATED_NEW');
      expect(Object.keys(newM ?? {})).toEqual(['m']);
      expect(newM).toMatchObject({ m: { k: 'w' } });
      // A path through a list index returns the whole list.
      expect(await returned('SET m.k2 = :v, l[0] = :v', 'UPDATED_OLD')).toEqual({
        l: ['x', 2, 'y'],
      });
      expect(await returned('REMOVE s', 'UPDATED_NEW')).toBeUndefined();
      const oldM = await returned('REMOVE m.k', 'UPDATED_OLD');
      expect(Object.keys(oldM ?? {})).toEqual(['m']);
      expect(oldM).toMatchObject({ m: { k: 'w' } });
    });

    it('applies the ledger credit: the currency once, the amount added, another currency refused', async () => {
      const credit = (accountId: string, amount: number, currency: string) =>
        client.send(
          new UpdateCommand({
            TableName: t.accounts,
            Key: { accountId },
            UpdateExpression:
              'ADD balanceCents :amount SET currency = if_not_exists(currency, :currency)',
            ConditionExpression: 'attribute_not_exists(currency) OR currency = :currency',
            ExpressionAttributeValues: { ':amount': amount, ':currency': currency },
          }),
        );
      const accountId = uniqueKey('acc');
      await credit(accountId, 1250, 'EUR');
      await credit(accountId, 50, 'EUR');
      const refused = await caught(credit(accountId, 1, 'USD'));
      expect(refused.name).toBe('ConditionalCheckFailedException');
      expect(await get({ accountId }, t.accounts)).toEqual({
        accountId,
        balanceCents: 1300,
        currency: 'EUR',
      });
    });

    it('applies the inventory reservation and refuses to reserve more than is available', async () => {
      const sku = uniqueKey('sku');
      await put({ sku, available: 5 }, t.stock);
      const reserve = (quantity: number) =>
        client.send(
          new UpdateCommand({
            TableName: t.stock,
            Key: { sku },
            UpdateExpression:
              'SET available = available - :quantity, reserved = if_not_exists(reserved, :zero) + :quantity',
            ConditionExpression: 'available >= :quantity',
            ExpressionAttributeValues: { ':quantity': quantity, ':zero': 0 },
          }),
        );
      await reserve(2);
      await reserve(3);
      expect((await caught(reserve(1))).name).toBe('ConditionalCheckFailedException');
      expect(await get({ sku }, t.stock)).toEqual({ sku, available: 0, reserved: 5 });
    });
  });

  describe('transactions', () => {
    describe('with a ClientRequestToken', () => {
      const sendWith = (token: string, items: TransactWriteCommandInput['TransactItems']) =>
        client.send(new TransactWriteCommand({ ClientRequestToken: token, TransactItems: items }));
      const adds = (pk: string, n: number) => [
        {
          Update: {
            TableName: t.items,
            Key: { pk },
            UpdateExpression: 'ADD n :n',
            ExpressionAttributeValues: { ':n': n },
          },
        },
      ];

      it('applies a transaction sent again with its token once, and answers it as a success', async () => {
        const [pk, token] = [uniqueKey(), uniqueKey('token').slice(0, 36)];

        await sendWith(token, adds(pk, 1));
        await sendWith(token, adds(pk, 1));

        expect(await get({ pk })).toEqual({ pk, n: 1 });
      });

      it('refuses the token sent again with other parameters (IdempotentParameterMismatchException)', async () => {
        const [pk, token] = [uniqueKey(), uniqueKey('token').slice(0, 36)];
        await sendWith(token, adds(pk, 1));

        const error = await caught(sendWith(token, adds(pk, 2)));

        expect(error.name).toBe('IdempotentParameterMismatchException');
        expect(await get({ pk })).toEqual({ pk, n: 1 });
      });

      it('runs a cancelled transaction sent again with its token again: it keeps no token', async () => {
        const [pk, token] = [uniqueKey(), uniqueKey('token').slice(0, 36)];
        const refused = [
          {
            ConditionCheck: {
              TableName: t.items,
              Key: { pk },
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
        ];

        const first = await caught(sendWith(token, refused));
        await put({ pk });
        await sendWith(token, refused);

        expect(first.name).toBe('TransactionCanceledException');
      });
    });

    it('applies Put, Update, Delete and ConditionCheck across tables when every condition holds', async () => {
      const [a, b, c, d] = [uniqueKey(), uniqueKey(), uniqueKey(), uniqueKey('acc')];
      await put({ pk: b, n: 1 });
      await put({ pk: c });
      await put({ accountId: d, open: true }, t.accounts);
      await transact([
        {
          Put: {
            TableName: t.items,
            Item: { pk: a },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Update: {
            TableName: t.items,
            Key: { pk: b },
            UpdateExpression: 'ADD n :one',
            ExpressionAttributeValues: { ':one': 1 },
          },
        },
        {
          Delete: {
            TableName: t.items,
            Key: { pk: c },
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
        {
          ConditionCheck: {
            TableName: t.accounts,
            Key: { accountId: d },
            ConditionExpression: '#o = :yes',
            ExpressionAttributeNames: { '#o': 'open' },
            ExpressionAttributeValues: { ':yes': true },
          },
        },
      ]);
      expect([await get({ pk: a }), await get({ pk: b }), await get({ pk: c })]).toEqual([
        { pk: a },
        { pk: b, n: 2 },
        undefined,
      ]);
    });

    it.each([
      {
        failing: 'ConditionCheck',
        write: (pk: string) => ({
          ConditionCheck: {
            TableName: '',
            Key: { pk },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        }),
      },
      {
        failing: 'Update condition',
        write: (pk: string) => ({
          Update: {
            TableName: '',
            Key: { pk },
            UpdateExpression: 'SET x = :v',
            ConditionExpression: 'n > :v',
            ExpressionAttributeValues: { ':v': 5 },
          },
        }),
      },
    ])(
      'cancels with one reason per item, ConditionalCheckFailed at the failing $failing (2 of 3), and applies nothing',
      async ({ write }) => {
        const [a, b, c] = [uniqueKey(), uniqueKey(), uniqueKey()];
        await put({ pk: b, n: 1 });
        await put({ pk: c, n: 1 });
        const failing = write(c);
        const [kind, body] = Object.entries(failing)[0] as [string, object];
        const error = await caught(
          transact([
            { Put: { TableName: t.items, Item: { pk: a } } },
            {
              Update: {
                TableName: t.items,
                Key: { pk: b },
                UpdateExpression: 'ADD n :one',
                ExpressionAttributeValues: { ':one': 1 },
              },
            },
            { [kind]: { ...body, TableName: t.items } },
          ]),
        );
        expect(error.name).toBe('TransactionCanceledException');
        expect(error.message).toBe(
          'Transaction cancelled, please refer cancellation reasons for specific reasons [None, None, ConditionalCheckFailed]',
        );
        expect(error.CancellationReasons).toEqual([
          { Code: 'None' },
          { Code: 'None' },
          {
            Code: 'ConditionalCheckFailed',
            Message: expect.stringMatching(/^The conditional request failed\.?$/),
          },
        ]);
        expect([await get({ pk: a }), await get({ pk: b }), await get({ pk: c })]).toEqual([
          undefined,
          { pk: b, n: 1 },
          { pk: c, n: 1 },
        ]);
      },
    );

    it('puts the old item, in wire form, in the reason of an item that asked ALL_OLD and exists — and only then', async () => {
      const [live, absent, noAsk, ok] = [uniqueKey(), uniqueKey(), uniqueKey(), uniqueKey()];
      await put({ pk: live, n: 1 });
      await put({ pk: noAsk });
      const error = await caught(
        transact([
          {
            Put: {
              TableName: t.items,
              Item: { pk: live },
              ConditionExpression: 'attribute_not_exists(pk)',
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
          {
            ConditionCheck: {
              TableName: t.items,
              Key: { pk: absent },
              ConditionExpression: 'attribute_exists(pk)',
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
          {
            Delete: {
              TableName: t.items,
              Key: { pk: noAsk },
              ConditionExpression: 'attribute_not_exists(pk)',
              ReturnValuesOnConditionCheckFailure: 'NONE',
            },
          },
          { Put: { TableName: t.items, Item: { pk: ok } } },
        ]),
      );
      const reasons = error.CancellationReasons ?? [];
      expect(reasons.map((reason) => reason.Code)).toEqual([
        'ConditionalCheckFailed',
        'ConditionalCheckFailed',
        'ConditionalCheckFailed',
        'None',
      ]);
      expect(reasons.map((reason) => reason.Item)).toEqual([
        { pk: { S: live }, n: { N: '1' } },
        undefined,
        undefined,
        undefined,
      ]);
      expect(await get({ pk: ok })).toBeUndefined();
    });

    it('refuses two operations on one item, numbers compared by value, in words the library maps to SameItem', async () => {
      const pk = uniqueKey();
      for (const items of [
        [
          { Put: { TableName: t.items, Item: { pk } } },
          { Delete: { TableName: t.items, Key: { pk } } },
        ],
        [
          { Put: { TableName: t.sorted, Item: { pk, sk: NumberValue.from('1') } } },
          { Put: { TableName: t.sorted, Item: { pk, sk: NumberValue.from('1.0') } } },
        ],
      ]) {
        const error = await caught(transact(items));
        expect(error.message).toBe(
          'Transaction request cannot include multiple operations on one item',
        );
        expect(translate(error)).toMatchObject({ limit: TransactionLimit.SameItem });
      }
      expect(await get({ pk })).toBeUndefined();
    });

    it.each([
      { count: 0, pattern: /greater than or equal to 1/, limit: TransactionLimit.InvalidOperation },
      { count: 101, pattern: /less than or equal to 100/, limit: TransactionLimit.OperationCount },
    ])('refuses a transaction of $count operations', async ({ count, pattern, limit }) => {
      const items = Array.from({ length: count }, (_, at) => ({
        Put: { TableName: t.items, Item: { pk: `many-${at}` } },
      }));
      const error = await caught(transact(items));
      expect(error.name).toBe('ValidationException');
      expect(error.message).toMatch(pattern);
      expect(translate(error)).toMatchObject({ limit });
    });

    it('refuses a transaction over 4 MB', async () => {
      const items = Array.from({ length: 11 }, (_, at) => ({
        Put: { TableName: t.items, Item: { pk: `big-${at}`, x: 'x'.repeat(390 * KB) } },
      }));
      const error = await caught(transact(items));
      expect(error.name).toBe('ValidationException');
      expect(translate(error)).toMatchObject({ limit: TransactionLimit.TransactionBytes });
    });

    it('refuses a transaction Put of an item over 400 KB', async () => {
      const error = await caught(
        transact([{ Put: { TableName: t.items, Item: { pk: 'k', x: 'x'.repeat(401 * KB) } } }]),
      );
      expect(error.message).toBe('Item size has exceeded the maximum allowed size');
    });

    it('cancels with a ValidationError reason when an update would grow an item past 400 KB', async () => {
      const pk = uniqueKey();
      await put({ pk, x: 'x'.repeat(300 * KB) });
      const error = await caught(
        transact([
          {
            Update: {
              TableName: t.items,
              Key: { pk },
              UpdateExpression: 'SET y = :v',
              ExpressionAttributeValues: { ':v': 'y'.repeat(200 * KB) },
            },
          },
        ]),
      );
      expect(error.CancellationReasons).toEqual([
        {
          Code: 'ValidationError',
          Message: 'Item size to update has exceeded the maximum allowed size',
        },
      ]);
      expect(translate(error)).toBe(error); // the store reads the reasons itself
    });

    it('rejects an update that refers to a missing attribute, applies nothing, and the library calls it permanent', async () => {
      const [a, b] = [uniqueKey(), uniqueKey()];
      const error = await caught(
        transact([
          { Put: { TableName: t.items, Item: { pk: a } } },
          {
            Update: {
              TableName: t.items,
              Key: { pk: b },
              UpdateExpression: 'SET q = q + :v',
              ExpressionAttributeValues: { ':v': 1 },
            },
          },
        ]),
      );
      // Local throws a ValidationException; MiniStack (and real DynamoDB, and the simulator)
      // cancel with reasons [None, ValidationError]. Both carry DynamoDB's message.
      expect(error.name).toMatch(/^(ValidationException|TransactionCanceledException)$/);
      expect(`${error.message} ${JSON.stringify(error.CancellationReasons ?? [])}`).toMatch(
        /refers to an attribute that does not exist in the item/,
      );
      expect(await get({ pk: a })).toBeUndefined();
    });
  });

  describe('time to live', () => {
    it('keeps an expired item readable until TTL deletes it', async () => {
      const pk = uniqueKey();
      await put({ pk, expiresAt: NOW_EPOCH_SECONDS - 60 }, t.inbox);
      expect(await get({ pk }, t.inbox)).toEqual({ pk, expiresAt: NOW_EPOCH_SECONDS - 60 });
    });
  });

  describe('the inbox store', () => {
    const store = () => new DynamoDBInboxStore({ tableName: t.inbox, client });
    const entryOf = (overrides: Partial<InboxEntry> = {}): InboxEntry => {
      const key = uniqueKey('evt');
      return {
        pk: inboxPk('ledger', key),
        consumer: 'ledger',
        key,
        messageId: uniqueKey('msg'),
        status: InboxStatus.Completed,
        payloadHash: 'hash',
        processedAt: '2026-11-24T00:00:00.000Z',
        expiresAt: NOW_EPOCH_SECONDS + 3600,
        formatVersion: 1,
        ...overrides,
      };
    };
    const credit = (accountId: string) => ({
      Update: {
        TableName: t.accounts,
        Key: { accountId },
        UpdateExpression: 'ADD balanceCents :amount',
        ExpressionAttributeValues: { ':amount': 100 },
      },
    });
    const balanceOf = async (accountId: string) =>
      (await get({ accountId }, t.accounts))?.balanceCents;
    /** Commits a new entry that credits a new account 100, and returns what it committed. */
    const committedOnce = async () => {
      const entry = entryOf();
      const accountId = uniqueKey('acc');
      const request = {
        entry,
        operations: [credit(accountId)],
        nowEpochSeconds: NOW_EPOCH_SECONDS,
      };
      await store().commit(request);
      return { entry, accountId, request };
    };

    it('commits the entry and the business writes when the entry is absent, and finds it', async () => {
      const entry = entryOf();
      const accountId = uniqueKey('acc');
      // Two Puts on one table make the store read that table's key schema (DescribeTable).
      const entries = [uniqueKey('pay'), uniqueKey('pay')].map((paymentId) => ({
        Put: { TableName: t.entries, Item: { paymentId } },
      }));
      const operations = [credit(accountId), ...entries];
      const result = await store().commit({
        entry,
        operations,
        nowEpochSeconds: NOW_EPOCH_SECONDS,
      });
      expect(result).toEqual({ committed: true });
      expect(await store().find(entry.pk)).toEqual(entry);
      expect(await store().find(inboxPk('ledger', uniqueKey()))).toBeUndefined();
      expect(await balanceOf(accountId)).toBe(100);
      expect(await get(entries[1]?.Put.Item ?? {}, t.entries)).toBeDefined();
    });

    it('answers a duplicate of a live entry with the entry it found, writing nothing', async () => {
      const { entry, accountId, request } = await committedOnce();
      const duplicate = await store().commit({
        ...request,
        entry: { ...entry, messageId: 'another' },
      });
      expect(duplicate).toEqual({ committed: false, existing: entry });
      expect(await balanceOf(accountId)).toBe(100);
    });

    it('treats an entry that expires at the very second of the commit as live', async () => {
      const { entry, accountId, request } = await committedOnce();
      const atExpiry = {
        ...request,
        entry: { ...entry, messageId: 'late' },
        nowEpochSeconds: entry.expiresAt,
      };
      expect(await store().commit(atExpiry)).toEqual({ committed: false, existing: entry });
      expect(await balanceOf(accountId)).toBe(100);
    });

    it('overwrites an expired entry and applies the writes again', async () => {
      const { entry, accountId } = await committedOnce();
      const later = { ...entry, messageId: 'later', expiresAt: entry.expiresAt + 7200 };
      const result = await store().commit({
        entry: later,
        operations: [credit(accountId)],
        nowEpochSeconds: entry.expiresAt + 1,
      });
      expect(result).toEqual({ committed: true });
      expect(await store().find(entry.pk)).toEqual(later);
      expect(await balanceOf(accountId)).toBe(200);
    });

    it('throws BusinessConditionFailedError naming the failed operation, writing nothing', async () => {
      const entry = entryOf();
      const accountId = uniqueKey('acc');
      const closed = {
        ConditionCheck: {
          TableName: t.accounts,
          Key: { accountId: uniqueKey('acc') },
          ConditionExpression: 'attribute_exists(accountId)',
        },
      };
      const error = await caught(
        store().commit({
          entry,
          operations: [credit(accountId), closed],
          nowEpochSeconds: NOW_EPOCH_SECONDS,
        }),
      );
      expect(error).toBeInstanceOf(BusinessConditionFailedError);
      expect(error).toMatchObject({
        operationIndex: 1,
        operationType: 'ConditionCheck',
        tableName: t.accounts,
      });
      expect(await store().find(entry.pk)).toBeUndefined();
      expect(await balanceOf(accountId)).toBeUndefined();
    });

    describe('stored formats', () => {
      /** An entry 0.1.0 released after its first step: no formatVersion, its journal kept. */
      const released = (overrides: Record<string, unknown> = {}) => {
        const { formatVersion: _, ...previous } = entryOf({ status: InboxStatus.Failed });
        const { processedAt: __, ...unprocessed } = previous;
        return {
          ...unprocessed,
          attempts: 1,
          leaseEpoch: 1,
          lastError: { name: 'Error', at: 't' },
          steps: { charge: { result: '1', at: 't' } },
          ...overrides,
        };
      };
      const claimFor = (entry: { pk: string; key: string }, owner: string) => ({
        entry: { ...entryOf({ pk: entry.pk, key: entry.key }), messageId: `m-${owner}` },
        payloadHashes: ['hash'],
        owner,
        nowMillis: NOW_EPOCH_SECONDS * 1000,
        leaseUntilMillis: NOW_EPOCH_SECONDS * 1000 + 60_000,
      });

      it("reads an entry stored without formatVersion (0.1.0's) as version 1, and a step-less commit of its payload resumes it", async () => {
        const previous = released();
        await put(previous, t.inbox);
        expect(await store().find(previous.pk)).toMatchObject({ formatVersion: 1 });

        const entry = entryOf({ pk: previous.pk, key: previous.key });
        const result = await store().commit({
          entry,
          operations: [],
          nowEpochSeconds: NOW_EPOCH_SECONDS,
        });
        expect(result).toEqual({ committed: true });
        expect(await get({ pk: previous.pk }, t.inbox)).toEqual(entry);
      });

      it('claims an entry 0.1.0 released, keeping its journal, and stamps the format version', async () => {
        const previous = released();
        await put(previous, t.inbox);

        const claim = await store().claim(claimFor(previous, 'a'));
        expect(claim).toMatchObject({
          claimed: true,
          lease: { owner: 'a', epoch: 2 },
          journal: { charge: { result: '1', at: 't' } },
        });
        expect(await get({ pk: previous.pk }, t.inbox)).toMatchObject({ formatVersion: 1 });
      });

      it('neither resumes nor claims an entry of a newer format version: FormatVersionError, the entry as it was, left out of a batch read', async () => {
        const newer = released({ formatVersion: 2 });
        await put(newer, t.inbox);
        const entry = entryOf({ pk: newer.pk, key: newer.key });

        const commit = store().commit({
          entry,
          operations: [],
          nowEpochSeconds: NOW_EPOCH_SECONDS,
        });
        expect(await caught(commit)).toMatchObject({ name: 'FormatVersionError', version: 2 });
        expect(await caught(store().claim(claimFor(newer, 'a')))).toMatchObject({
          name: 'FormatVersionError',
          version: 2,
        });
        expect(await get({ pk: newer.pk }, t.inbox)).toEqual(newer);
        expect(await store().findMany([newer.pk])).toEqual(new Map());
      });
    });

    describe('the lease of a handler with steps', () => {
      const T0 = NOW_EPOCH_SECONDS * 1000;
      const claimOf = (key: string, owner: string, nowMillis: number, leaseMillis = 1_000) => ({
        entry: {
          pk: inboxPk('ledger', key),
          consumer: 'ledger',
          key,
          messageId: `m-${owner}`,
          payloadHash: 'hash',
          expiresAt: Math.floor(nowMillis / 1000) + 3600,
        },
        payloadHashes: ['hash'],
        owner,
        nowMillis,
        leaseUntilMillis: nowMillis + leaseMillis,
      });
      const claimed = async (request: ReturnType<typeof claimOf>) => {
        const result = await store().claim(request);
        if (!result.claimed) throw new Error('claim refused');
        return result.lease;
      };

      it('claims an absent entry, refuses a claim under a live lease with the holder, and takes over a lapsed one keeping the journal', async () => {
        const key = uniqueKey('evt');
        const pk = inboxPk('ledger', key);
        const first = await claimed(claimOf(key, 'a', T0));
        expect(first).toEqual({ owner: 'a', epoch: 1 });
        await store().journal({
          pk,
          lease: first,
          stepName: 'charge',
          step: { result: '1', at: 't' },
        });

        const refused = await store().claim(claimOf(key, 'b', T0 + 1_000));
        expect(refused).toMatchObject({
          claimed: false,
          existing: { status: InboxStatus.InProgress, leaseUntilMillis: T0 + 1_000 },
        });

        const taken = await store().claim(claimOf(key, 'b', T0 + 1_001));
        expect(taken).toEqual({
          claimed: true,
          lease: { owner: 'b', epoch: 2 },
          attempts: 2,
          journal: { charge: { result: '1', at: 't' } },
          leaseUntilMillis: T0 + 1_001 + 1_000,
          // Another owner's lapsed lease: a takeover (InboxLeaseTakeovers).
          takenOver: true,
        });
      });

      it('refuses a stale owner its journal write, heartbeat, commit (with its business write) and release', async () => {
        const key = uniqueKey('evt');
        const pk = inboxPk('ledger', key);
        const stale = await claimed(claimOf(key, 'a', T0));
        await claimed(claimOf(key, 'b', T0 + 2_000));
        const accountId = uniqueKey('acc');
        const entry = entryOf({ pk, key, messageId: 'm-a' });

        const outcomes = await Promise.allSettled([
          store().journal({ pk, lease: stale, stepName: 'charge', step: { at: 't' } }),
          store().heartbeat({
            pk,
            lease: stale,
            leaseUntilMillis: T0 + 9_000,
            expiresAt: entry.expiresAt,
          }),
          store().commit({
            entry,
            operations: [credit(accountId)],
            nowEpochSeconds: NOW_EPOCH_SECONDS,
            lease: stale,
          }),
          store().release({ pk, lease: stale, lastError: { name: 'Error', at: 't' } }),
        ]);

        expect(
          outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error).name : 'applied')),
        ).toEqual(Array(4).fill('LeaseLostError'));
        expect(await balanceOf(accountId)).toBeUndefined();
        expect(await get({ pk }, t.inbox)).toMatchObject({
          leaseOwner: 'b',
          leaseEpoch: 2,
          leaseUntil: T0 + 3_000,
          steps: {},
        });
      });

      it('completes the entry with the business writes under the lease, and a released entry is claimed at once', async () => {
        const key = uniqueKey('evt');
        const pk = inboxPk('ledger', key);
        const lease = await claimed(claimOf(key, 'a', T0, 60_000));
        await store().release({ pk, lease, lastError: { name: 'TypeError', at: 't' } });
        const next = await claimed(claimOf(key, 'b', T0 + 1));
        const accountId = uniqueKey('acc');

        const result = await store().commit({
          entry: entryOf({ pk, key }),
          operations: [credit(accountId)],
          nowEpochSeconds: NOW_EPOCH_SECONDS,
          lease: next,
        });

        expect(result).toEqual({ committed: true });
        expect(await balanceOf(accountId)).toBe(100);
        const item = await get({ pk }, t.inbox);
        expect(item).toMatchObject({
          status: InboxStatus.Completed,
          attempts: 2,
          leaseEpoch: 2,
          lastError: { name: 'TypeError' },
        });
        expect(item).not.toHaveProperty('leaseOwner');
        expect(item).not.toHaveProperty('leaseUntil');
      });

      it('refuses a step-less commit under a live lease, and starts afresh on an expired entry', async () => {
        const key = uniqueKey('evt');
        const pk = inboxPk('ledger', key);
        const lease = await claimed(claimOf(key, 'a', T0, 60_000));
        await store().journal({ pk, lease, stepName: 'charge', step: { at: 't' } });
        const plain = await store().commit({
          entry: entryOf({ pk, key }),
          operations: [],
          nowEpochSeconds: NOW_EPOCH_SECONDS,
        });
        expect(plain).toMatchObject({
          committed: false,
          existing: { status: InboxStatus.InProgress },
        });

        const later = T0 + 3_601_000;
        const afresh = await store().claim(claimOf(key, 'b', later));

        expect(afresh).toEqual({
          claimed: true,
          lease: { owner: 'b', epoch: 2 },
          attempts: 1,
          journal: {},
          leaseUntilMillis: later + 1_000,
          // The expired entry still named a holder that never released it: a takeover too.
          takenOver: true,
        });
      });
    });

    describe('the failure record of a step-less attempt', () => {
      const T0 = NOW_EPOCH_SECONDS * 1000;
      const failureOf = (
        pk: string,
        key: string,
        overrides: { payloadHash?: string; at?: number } = {},
      ) => {
        const nowMillis = overrides.at ?? T0;
        return {
          entry: {
            pk,
            consumer: 'ledger',
            key,
            messageId: `m-${nowMillis}`,
            payloadHash: overrides.payloadHash ?? 'hash',
            expiresAt: Math.floor(nowMillis / 1000) + 60,
          },
          payloadHashes: [overrides.payloadHash ?? 'hash'],
          lastError: { name: 'TimeoutError', at: new Date(nowMillis).toISOString() },
          nowMillis,
        };
      };

      it('creates a FAILED entry, adds one attempt to it, and a step-less commit of another payload takes it over', async () => {
        const key = uniqueKey('evt');
        const pk = inboxPk('ledger', key);
        await expect(store().recordFailure(failureOf(pk, key))).resolves.toEqual({
          recorded: true,
        });
        await expect(
          store().recordFailure(failureOf(pk, key, { at: T0 + 5_000 })),
        ).resolves.toEqual({
          recorded: true,
        });
        expect(await store().find(pk)).toEqual({
          pk,
          consumer: 'ledger',
          key,
          messageId: `m-${T0 + 5_000}`,
          status: InboxStatus.Failed,
          payloadHash: 'hash',
          expiresAt: Math.floor((T0 + 5_000) / 1000) + 60,
          formatVersion: 1,
          attempts: 2,
          lastError: { name: 'TimeoutError', at: new Date(T0 + 5_000).toISOString() },
        });

        const other = await store().commit({
          entry: entryOf({ pk, key, payloadHash: 'other' }),
          operations: [],
          nowEpochSeconds: NOW_EPOCH_SECONDS,
        });
        expect(other).toEqual({ committed: true });
      });

      it("leaves a committed, leased, expired or another payload's entry as it was, answering recorded: false", async () => {
        const { entry } = await committedOnce();
        const leasedKey = uniqueKey('evt');
        const leasedPk = inboxPk('ledger', leasedKey);
        await store().claim({
          entry: { ...failureOf(leasedPk, leasedKey).entry, expiresAt: NOW_EPOCH_SECONDS + 3600 },
          payloadHashes: ['hash'],
          owner: 'a',
          nowMillis: T0,
          leaseUntilMillis: T0 + 60_000,
        });
        const failedKey = uniqueKey('evt');
        const failedPk = inboxPk('ledger', failedKey);
        await store().recordFailure(failureOf(failedPk, failedKey));
        const before = await Promise.all(
          [entry.pk, leasedPk, failedPk].map((pk) => store().find(pk)),
        );

        const answers = await Promise.all([
          store().recordFailure(failureOf(entry.pk, entry.key)),
          store().recordFailure(failureOf(leasedPk, leasedKey, { at: T0 + 1_000 })),
          store().recordFailure(failureOf(failedPk, failedKey, { payloadHash: 'other' })),
          store().recordFailure(failureOf(failedPk, failedKey, { at: T0 + 61_000 })),
        ]);

        expect(answers).toEqual([
          { recorded: false },
          { recorded: false },
          { recorded: false },
          { recorded: false },
        ]);
        const after = await Promise.all(
          [entry.pk, leasedPk, failedPk].map((pk) => store().find(pk)),
        );
        expect(after).toEqual(before);
      });
    });

    it('runs the reference ledger and inventory handlers through the batch processor, applying each event once', async () => {
      const run = await ledgerAndInventoryRun(client, t);
      expect(run.statuses).toEqual(['processed', 'duplicate', 'processed', 'duplicate']);
      expect(run.balanceCents).toBe(1250);
      expect(run.stock).toEqual({ available: 3, reserved: 2 });
      expect(run.order).toMatchObject({ status: 'RESERVED' });
    });
  });
});

interface Ctx {
  readonly get: (key: Record<string, unknown>, table?: string) => Promise<unknown>;
  readonly put: (item: Record<string, unknown>, table?: string) => Promise<unknown>;
  readonly t: { readonly sorted: string };
}
