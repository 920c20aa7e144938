import { describe, expect, it } from 'vitest';
import { N, S, simWithTables, thrown } from './simFixture.js';

/**
 * What the simulator's Query and Scan do where the conformance suite cannot hold it to an
 * emulator: what it refuses as not modelled, where it follows DynamoDB's documentation over
 * DynamoDB Local, its own Scan order, and TTL under the world's clock.
 */
const QUARTER_MB = 256 * 1024;

/** `sorted` with partition `p`: sort keys 1 to `count`, each item about a quarter MB when `big`. */
function withPartition(count: number, big = false) {
  const dynamo = simWithTables();
  for (let sk = 1; sk <= count; sk++) {
    const Item = { pk: S('p'), sk: N(String(sk)) };
    dynamo.putItem({
      TableName: 'sorted',
      Item: big ? { ...Item, x: S('x'.repeat(QUARTER_MB)) } : Item,
    });
  }
  return dynamo;
}

const allOfP = {
  TableName: 'sorted',
  KeyConditionExpression: 'pk = :p',
  ExpressionAttributeValues: { ':p': S('p') },
};

describe('SimDynamoDB Query and Scan', () => {
  it('refuses IndexName, which it does not model, with an Error naming it', () => {
    const dynamo = withPartition(1);
    expect(thrown(() => dynamo.query({ ...allOfP, IndexName: 'byStatus' })).message).toMatch(
      /^The in-memory DynamoDB does not model IndexName of Query/,
    );
    expect(
      thrown(() => dynamo.scan({ TableName: 'sorted', IndexName: 'byStatus' })).message,
    ).toMatch(/^The in-memory DynamoDB does not model IndexName of Scan/);
  });

  it('refuses a parallel Scan (Segment, TotalSegments), which it does not model', () => {
    const dynamo = withPartition(1);
    const segmented = { TableName: 'sorted', Segment: 0, TotalSegments: 2 };
    expect(thrown(() => dynamo.scan(segmented)).message).toMatch(
      /^The in-memory DynamoDB does not model Segment, TotalSegments of Scan/,
    );
  });

  it('refuses the legacy KeyConditions, QueryFilter and AttributesToGet', () => {
    const dynamo = withPartition(1);
    const legacy = {
      TableName: 'sorted',
      KeyConditions: { pk: { ComparisonOperator: 'EQ' as const, AttributeValueList: [S('p')] } },
      QueryFilter: {},
      AttributesToGet: ['sk'],
    };
    expect(thrown(() => dynamo.query(legacy)).message).toMatch(
      /does not model KeyConditions, QueryFilter, AttributesToGet of Query/,
    );
  });

  it('counts a Query’s 1 MB in the items read before its filter, as DynamoDB documents (DynamoDB Local counts after it)', () => {
    const dynamo = withPartition(6, true);
    const page = dynamo.query({ ...allOfP, FilterExpression: 'attribute_exists(nope)' });
    expect(page).toMatchObject({ Count: 0, ScannedCount: 4 });
    expect(page.LastEvaluatedKey).toEqual({ pk: S('p'), sk: N('4') });
  });

  it('scans in key order: partition key by its type’s order, then sort key', () => {
    const dynamo = simWithTables();
    for (const pk of ['b', 'a', 'B']) {
      for (const sk of ['10', '9']) {
        dynamo.putItem({ TableName: 'sorted', Item: { pk: S(pk), sk: N(sk) } });
      }
    }
    const keys = dynamo
      .scan({ TableName: 'sorted' })
      .Items?.map((item) => `${item.pk?.S}/${item.sk?.N}`);
    expect(keys).toEqual(['B/9', 'B/10', 'a/9', 'a/10', 'b/9', 'b/10']);
  });

  it('returns an item TTL may delete until the world deletes it', () => {
    const dynamo = simWithTables();
    dynamo.updateTimeToLive({
      TableName: 'sorted',
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
    const item = { pk: S('p'), sk: N('1'), expiresAt: N('1000') };
    dynamo.putItem({ TableName: 'sorted', Item: item });
    expect(dynamo.expiredItems('sorted', 2000)).toEqual([item]);
    expect(dynamo.query(allOfP).Items).toEqual([item]);
    expect(dynamo.scan({ TableName: 'sorted' }).Items).toEqual([item]);
    dynamo.deleteExpired('sorted', item, 2000);
    expect(dynamo.query(allOfP).Items).toEqual([]);
  });
});
