/**
 * Query and Scan on several DynamoDBs: the project's emulator (MiniStack under `integration`,
 * DynamoDB Local under `conformance`) and the simulator of src/testing/dynamo, with the same
 * assertions on each. DynamoDB Local is the reference: a test MiniStack fails is marked
 * "known-different on MiniStack" and expected to fail there (so it tells when MiniStack is
 * fixed). Where DynamoDB Local itself differs from DynamoDB's documentation (1 MB of a Query
 * counted after its filter), the simulator follows the documentation, pinned by test/unit/sim.
 * Scan order is left out: DynamoDB's follows a hash of the partition key, the simulator's is
 * key order; within one partition both are in sort-key order. The refusals are in
 * simulatedQueryRefusals.test.ts.
 */
import {
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteTables, dynamoTargets } from '../support/dynamoTargets.js';
import {
  BYTE_KEYS,
  createQueryTables,
  type QueryTables,
  SORT_KEYS,
  STRING_KEYS,
} from '../support/queryTables.js';

const NOW_EPOCH_SECONDS = Math.floor(Date.now() / 1000);

type Row = Record<string, unknown>;

describe.each(dynamoTargets())('Query and Scan on $name', (target) => {
  const onMiniStack = target.name.startsWith('MiniStack');
  /** A test DynamoDB Local passes and MiniStack fails: expected to fail on MiniStack. */
  const knownDifferentOnMiniStack = onMiniStack ? it.fails : it;
  let client: DynamoDBDocumentClient;
  let close: () => void;
  let t: QueryTables;

  const put = (TableName: string, Item: Row) => client.send(new PutCommand({ TableName, Item }));
  const query = (input: Omit<QueryCommandInput, 'TableName'>, TableName = t.sorted) =>
    client.send(new QueryCommand({ TableName, ...input }));
  const scan = (input: Omit<ScanCommandInput, 'TableName'>, TableName = t.sorted) =>
    client.send(new ScanCommand({ TableName, ...input }));
  const inP = (KeyConditionExpression = 'pk = :p', values: Row = {}) => ({
    KeyConditionExpression,
    ExpressionAttributeValues: { ':p': 'p', ...values },
  });
  const keysOf = (items: Row[] | undefined, name = 'sk') => (items ?? []).map((item) => item[name]);

  beforeAll(async () => {
    ({ client, close } = target.connect());
    t = await createQueryTables(client);
  });
  afterAll(async () => {
    await deleteTables(client, Object.values(t));
    close();
  });

  describe('Query', () => {
    it('returns one partition in sort-key order: numbers by value', async () => {
      const { Items, Count, ScannedCount } = await query(inP());
      expect(keysOf(Items)).toEqual(SORT_KEYS);
      expect([Count, ScannedCount]).toEqual([5, 5]);
    });

    it('orders string sort keys by UTF-8 bytes and binary ones by unsigned bytes', async () => {
      expect(keysOf((await query(inP(), t.strings)).Items)).toEqual(STRING_KEYS);
      expect(keysOf((await query(inP(), t.bytes)).Items)).toEqual(BYTE_KEYS);
    });

    it('reverses the order with ScanIndexForward false', async () => {
      const { Items } = await query({ ...inP(), ScanIndexForward: false });
      expect(keysOf(Items)).toEqual([...SORT_KEYS].reverse());
    });

    it.each([
      { condition: 'sk = :a', values: { ':a': 2 }, expected: [2] },
      { condition: 'sk < :a', values: { ':a': 2 }, expected: [-5, 1.5] },
      { condition: 'sk <= :a', values: { ':a': 2 }, expected: [-5, 1.5, 2] },
      { condition: 'sk > :a', values: { ':a': 2 }, expected: [10, 100] },
      { condition: 'sk >= :a', values: { ':a': 2 }, expected: [2, 10, 100] },
      { condition: ':a < sk', values: { ':a': 2 }, expected: [10, 100] },
      {
        condition: 'sk BETWEEN :a AND :b',
        values: { ':a': 1.5, ':b': 10 },
        expected: [1.5, 2, 10],
      },
    ])('selects sort keys with $condition', async ({ condition, values, expected }) => {
      const { Items } = await query(inP(`pk = :p AND ${condition}`, values));
      expect(keysOf(Items)).toEqual(expected);
    });

    it('selects string sort keys with begins_with, and names keys through placeholders', async () => {
      const { Items } = await query(
        {
          KeyConditionExpression: '#p = :p AND begins_with(#s, :prefix)',
          ExpressionAttributeNames: { '#p': 'pk', '#s': 'sk' },
          ExpressionAttributeValues: { ':p': 'p', ':prefix': 'a#' },
        },
        t.strings,
      );
      expect(keysOf(Items)).toEqual(['a#1', 'a#2']);
    });

    it('returns no item, and counts none, for an empty partition', async () => {
      expect(await query(inP('pk = :p', { ':p': 'nobody' }))).toMatchObject({
        Items: [],
        Count: 0,
        ScannedCount: 0,
      });
    });

    it('filters after reading: Count the items kept, ScannedCount the items read', async () => {
      const page = await query({ ...inP('pk = :p', { ':n': 3 }), FilterExpression: 'n >= :n' });
      expect(keysOf(page.Items)).toEqual([2, 10, 100]);
      expect([page.Count, page.ScannedCount]).toEqual([3, 5]);
    });

    it('counts Limit in items read before the filter, with a LastEvaluatedKey', async () => {
      const page = await query({
        ...inP('pk = :p', { ':n': 2 }),
        FilterExpression: 'n >= :n',
        Limit: 2,
      });
      expect(keysOf(page.Items)).toEqual([1.5]);
      expect([page.Count, page.ScannedCount]).toEqual([1, 2]);
      expect(page.LastEvaluatedKey).toEqual({ pk: 'p', sk: 1.5 });
    });

    it('gives a LastEvaluatedKey when Limit is reached on the last item, and none past it', async () => {
      expect((await query({ ...inP(), Limit: 5 })).LastEvaluatedKey).toEqual({ pk: 'p', sk: 100 });
      expect((await query({ ...inP(), Limit: 6 })).LastEvaluatedKey).toBeUndefined();
    });

    it('continues after the ExclusiveStartKey, forward and backward, even an absent key', async () => {
      const startingAfter = async (sk: number, ScanIndexForward = true) =>
        keysOf(
          (await query({ ...inP(), ScanIndexForward, ExclusiveStartKey: { pk: 'p', sk } })).Items,
        );
      expect(await startingAfter(2)).toEqual([10, 100]);
      expect(await startingAfter(2, false)).toEqual([1.5, -5]);
      expect(await startingAfter(3)).toEqual([10, 100]);
      expect(await startingAfter(100)).toEqual([]);
    });

    it('pages through a partition with Limit and LastEvaluatedKey, each item once', async () => {
      const seen: unknown[] = [];
      let start: Row | undefined;
      for (let page = 0; page < 10; page++) {
        const result = await query({ ...inP(), Limit: 2, ExclusiveStartKey: start });
        seen.push(...keysOf(result.Items));
        start = result.LastEvaluatedKey;
        if (start === undefined) break;
      }
      expect(seen).toEqual(SORT_KEYS);
    });

    it('projects top-level and nested paths; list elements close up; absent paths add nothing', async () => {
      const page = await query({
        ...inP('pk = :p AND sk = :s', { ':s': 100 }),
        ProjectionExpression: 'sk, #m.x, l[2], l[0], l[7], nope, m.nope',
        ExpressionAttributeNames: { '#m': 'm' },
      });
      expect(page.Items).toEqual([{ sk: 100, m: { x: 'x4' }, l: ['l0', 'l2'] }]);
      const none = await query({
        ...inP('pk = :p AND sk = :s', { ':s': 100 }),
        ProjectionExpression: 'nope',
      });
      expect(none.Items).toEqual([{}]);
    });

    it('answers counts without Items for Select COUNT; ALL_ATTRIBUTES and SPECIFIC_ATTRIBUTES as asked', async () => {
      const counted = await query({
        ...inP('pk = :p', { ':n': 4 }),
        FilterExpression: 'n >= :n',
        Select: 'COUNT',
      });
      expect(counted).not.toHaveProperty('Items');
      expect([counted.Count, counted.ScannedCount]).toEqual([2, 5]);
      const all = await query({
        ...inP('pk = :p AND sk = :s', { ':s': 2 }),
        Select: 'ALL_ATTRIBUTES',
        ConsistentRead: true,
      });
      expect(all.Items).toEqual([
        { pk: 'p', sk: 2, n: 3, m: { x: 'x2', y: 2 }, l: ['l0', 'l1', 'l2'] },
      ]);
      const some = await query({
        ...inP(),
        Select: 'SPECIFIC_ATTRIBUTES',
        ProjectionExpression: 'n',
        Limit: 1,
      });
      expect(some.Items).toEqual([{ n: 1 }]);
    });

    knownDifferentOnMiniStack(
      'reads the one item of a key on a table without a sort key, with no LastEvaluatedKey at Limit 1 (known-different on MiniStack, which gives one)',
      async () => {
        const page = await query({ ...inP('pk = :p', { ':p': 'b' }), Limit: 1 }, t.hashOnly);
        expect(page).toMatchObject({ Items: [{ pk: 'b', n: 1 }], Count: 1, ScannedCount: 1 });
        expect(page.LastEvaluatedKey).toBeUndefined();
      },
    );

    it('returns an expired item until TTL deletes it', async () => {
      const item = { pk: 'p', sk: 1, expiresAt: NOW_EPOCH_SECONDS - 60 };
      await put(t.ttl, item);
      expect((await query(inP(), t.ttl)).Items).toEqual([item]);
      expect((await scan({}, t.ttl)).Items).toEqual([item]);
    });
  });

  describe('1 MB pages', () => {
    const big = (pk: string, input: Omit<QueryCommandInput, 'TableName'> = {}) =>
      query({ ...inP('pk = :p', { ':p': pk }), ProjectionExpression: 'sk', ...input }, t.big);

    knownDifferentOnMiniStack(
      'ends a page with the item that passes 1 MB, and the next page goes on from it (known-different on MiniStack, which stops an item early)',
      async () => {
        const first = await big('over');
        expect(keysOf(first.Items)).toEqual([1, 2, 3, 4]);
        expect(first.LastEvaluatedKey).toEqual({ pk: 'over', sk: 4 });
        const second = await big('over', { ExclusiveStartKey: first.LastEvaluatedKey });
        expect(keysOf(second.Items)).toEqual([5]);
        expect(second.LastEvaluatedKey).toBeUndefined();
      },
    );

    it('ends a page at exactly 1 MB', async () => {
      const page = await big('exact');
      expect(keysOf(page.Items)).toEqual([1, 2, 3, 4]);
      expect(page.LastEvaluatedKey).toEqual({ pk: 'exact', sk: 4 });
    });

    knownDifferentOnMiniStack(
      'does not end a page 1 byte under 1 MB, nor give a key when the last item reaches 1 MB (known-different on MiniStack, which stops earlier)',
      async () => {
        const under = await big('under');
        expect([under.Count, under.LastEvaluatedKey]).toEqual([5, undefined]);
        const last = await big('last');
        expect([last.Count, last.LastEvaluatedKey]).toEqual([4, undefined]);
      },
    );

    knownDifferentOnMiniStack(
      'counts 1 MB in the order read when ScanIndexForward is false (known-different on MiniStack, which stops an item early)',
      async () => {
        const page = await big('over', { ScanIndexForward: false });
        expect(keysOf(page.Items)).toEqual([5, 4, 3, 2]);
        expect(page.LastEvaluatedKey).toEqual({ pk: 'over', sk: 2 });
      },
    );

    knownDifferentOnMiniStack(
      'counts 1 MB of a Scan in the items read before its filter (known-different on MiniStack, which stops an item early)',
      async () => {
        const filtered = { FilterExpression: 'attribute_exists(nope)', ProjectionExpression: 'sk' };
        const first = await scan(filtered, t.bigScan);
        expect(first).toMatchObject({
          Count: 0,
          ScannedCount: 4,
          LastEvaluatedKey: { pk: 'over', sk: 4 },
        });
        const second = await scan(
          { ...filtered, ExclusiveStartKey: first.LastEvaluatedKey },
          t.bigScan,
        );
        expect(second).toMatchObject({ Count: 0, ScannedCount: 1 });
        expect(second.LastEvaluatedKey).toBeUndefined();
      },
    );
  });

  describe('Scan', () => {
    it('returns every item once, and counts them', async () => {
      const { Items, Count, ScannedCount } = await scan({});
      const keys = (Items ?? []).map((item) => `${item.pk}/${item.sk}`).sort();
      expect(keys).toEqual([...SORT_KEYS.map((sk) => `p/${sk}`), 'q/1'].sort());
      expect([Count, ScannedCount]).toEqual([6, 6]);
    });

    knownDifferentOnMiniStack(
      'returns a partition in sort-key order (known-different on MiniStack, which orders numbers as text)',
      async () => {
        const { Items } = await scan({});
        expect(keysOf(Items?.filter((item) => item.pk === 'p'))).toEqual(SORT_KEYS);
      },
    );

    it('pages through a table with Limit counted before the filter, each item once', async () => {
      const seen: Row[] = [];
      let start: Row | undefined;
      let scanned = 0;
      for (let page = 0; page < 10; page++) {
        const result = await scan({
          Limit: 2,
          FilterExpression: 'sk > :z',
          ExpressionAttributeValues: { ':z': 0 },
          ExclusiveStartKey: start,
        });
        expect(result.ScannedCount).toBeLessThanOrEqual(2);
        scanned += result.ScannedCount ?? 0;
        seen.push(...(result.Items ?? []));
        start = result.LastEvaluatedKey;
        if (start === undefined) break;
      }
      expect(scanned).toBe(6);
      expect(seen.map((item) => `${item.pk}/${item.sk}`).sort()).toEqual([
        'p/1.5',
        'p/10',
        'p/100',
        'p/2',
        'q/1',
      ]);
    });

    it('filters on key attributes, unlike Query, and counts with Select COUNT', async () => {
      const page = await scan({
        FilterExpression: 'pk = :p AND sk >= :s',
        ExpressionAttributeValues: { ':p': 'p', ':s': 10 },
        Select: 'COUNT',
      });
      expect(page).toEqual(expect.objectContaining({ Count: 2, ScannedCount: 6 }));
      expect(page).not.toHaveProperty('Items');
    });

    knownDifferentOnMiniStack(
      'continues after an ExclusiveStartKey, an absent one too, in sort-key order within its partition (known-different on MiniStack, which orders numbers as text)',
      async () => {
        const page = await scan({
          ExclusiveStartKey: { pk: 'p', sk: 3 },
          ProjectionExpression: 'pk, sk',
        });
        expect(keysOf(page.Items?.filter((item) => item.pk === 'p'))).toEqual([10, 100]);
      },
    );
  });
});
