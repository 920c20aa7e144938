import { describe, expect, it } from 'vitest';
import { DynamoDBInboxStore } from '../../../src/aws/DynamoDBInboxStore.js';
import { outboxMessageId } from '../../../src/constants/index.js';
import { buildEntry } from '../../../src/core/inboxEntry.js';
import { SimDocumentClient } from '../../../src/testing/dynamo/SimDocumentClient.js';
import { SimDynamoDB } from '../../../src/testing/dynamo/SimDynamoDB.js';
import { Prng } from '../../../tools/sim/kernel/Prng.js';
import {
  asPreviousRelease,
  previousReleaseContainers,
} from '../../../tools/sim/world/previousRelease.js';

const NOW_MILLIS = Date.UTC(2026, 10, 24);
const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/credits.fifo';
const rewrite = asPreviousRelease(['inbox', 'outbox']);

function stores() {
  const dynamo = new SimDynamoDB();
  for (const TableName of ['inbox', 'outbox']) {
    dynamo.createTable({
      TableName,
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    });
  }
  const storeOf = (client: SimDocumentClient) =>
    new DynamoDBInboxStore({
      tableName: 'inbox',
      client: client.documentClient,
      outbox: { tableName: 'outbox' },
    });
  return {
    dynamo,
    current: storeOf(new SimDocumentClient({ dynamo })),
    previous: storeOf(new SimDocumentClient({ dynamo, rewrite })),
    versionsIn: (TableName: string) =>
      dynamo.changes
        .filter((change) => change.tableName === TableName)
        .map((change) => change.newImage?.formatVersion?.N ?? 'none'),
  };
}

const entry = buildEntry({
  consumer: 'notifier',
  key: 'evt-1',
  messageId: 'm-1',
  payloadHash: 'h',
  nowMillis: NOW_MILLIS,
  ttlSeconds: 86_400,
});
const claim = (owner: string, nowMillis: number) => ({
  entry,
  payloadHashes: ['h'],
  owner,
  nowMillis,
  leaseUntilMillis: nowMillis + 1_000,
});

describe('asPreviousRelease', () => {
  it("makes the store write what 0.1.0 wrote: a commit's entry and outbox items, and a claim, without formatVersion", async () => {
    const { previous, versionsIn } = stores();
    const message = {
      id: outboxMessageId('notifier', 'evt-1', { index: 0 }),
      destination: QUEUE,
      kind: 'sqs-fifo' as const,
      body: '{}',
      groupId: 'acc-1',
    };
    await previous.claim(claim('a', NOW_MILLIS));
    await previous.commit({
      entry,
      operations: [],
      outgoing: [message, { ...message, id: outboxMessageId('notifier', 'evt-1', { index: 1 }) }],
      nowEpochSeconds: NOW_MILLIS / 1000,
      lease: { owner: 'a', epoch: 1 },
    });

    expect(versionsIn('inbox')).toEqual(['none', 'none']);
    expect(versionsIn('outbox')).toEqual(['none']);
  });

  it('keeps the version an entry holds when the previous release takes over its lapsed lease', async () => {
    const { current, previous, versionsIn } = stores();
    await current.claim(claim('a', NOW_MILLIS));
    await previous.claim(claim('b', NOW_MILLIS + 7_000));

    expect(versionsIn('inbox')).toEqual(['1', '1']);
  });

  it('leaves reads and writes of tables without versions as they are', () => {
    const put = { TableName: 'accounts', Item: { formatVersion: { N: '7' } } };
    const get = { TableName: 'inbox', Key: { pk: { S: 'k' } } };

    expect(rewrite('PutItem', put)).toBe(put);
    expect(rewrite('GetItem', get)).toBe(get);
  });

  it("throws when a request still names formatVersion after the rewrite: the library's text moved", () => {
    const update = {
      TableName: 'inbox',
      Key: { pk: { S: 'k' } },
      UpdateExpression: 'SET #formatVersion = :v',
      ExpressionAttributeNames: { '#formatVersion': 'formatVersion' },
      ExpressionAttributeValues: { ':v': { N: '1' } },
    };

    expect(() => rewrite('UpdateItem', update)).toThrow(/still names formatVersion/);
  });
});

describe('previousReleaseContainers', () => {
  it('runs the previous release in about its share of the containers, and names them', () => {
    const containers = previousReleaseContainers(0.3, new Prng(7));
    const runs = Array.from({ length: 1_000 }, (_, n) => containers.runs(`lambda-${n}`));

    expect(runs.filter(Boolean).length).toBeGreaterThan(250);
    expect(runs.filter(Boolean).length).toBeLessThan(350);
    expect(containers.actors.size).toBe(runs.filter(Boolean).length);
  });

  it('runs none without a share', () => {
    expect(previousReleaseContainers(undefined, new Prng(7)).runs('lambda-1')).toBe(false);
  });
});
