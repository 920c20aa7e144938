import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimDocumentClient } from '../../src/testing/dynamo/SimDocumentClient.js';
import { SimDynamoDB } from '../../src/testing/dynamo/SimDynamoDB.js';
import { SimStream } from '../../tools/sim/streams/SimStream.js';
import { testAws } from '../harness/aws.js';
import { readStream, type StreamChange } from '../support/streamRecords.js';

/** A table whose stream the test reads back, on the emulator or in the simulator. */
interface StreamTarget {
  readonly name: string;
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly read: () => Promise<StreamChange[]>;
  readonly close: () => Promise<void>;
}

async function emulatorTarget(): Promise<StreamTarget> {
  const aws = testAws();
  const tableName = await aws.createOutboxTable(aws.uniqueName('stream'));
  return {
    name: 'the emulator',
    client: aws.documentClient,
    tableName,
    read: () => readStream(aws.dynamodb, tableName),
    close: () => aws.cleanup(),
  };
}

function simulatorTarget(shards: number): StreamTarget {
  const dynamo = new SimDynamoDB();
  const tableName = 'stream';
  dynamo.createTable({
    TableName: tableName,
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
  });
  const changeMillis: number[] = [];
  const stream = new SimStream(() => dynamo.changes, tableName, shards, changeMillis);
  return {
    name: `SimStream (${shards} shards)`,
    client: new SimDocumentClient({ dynamo }).documentClient,
    tableName,
    read: async () => stream.records.flat().map(toChange),
    close: async () => {},
  };
}

function toChange(record: DynamoDBRecord): StreamChange {
  const image = record.dynamodb?.NewImage;
  return {
    eventName: record.eventName,
    pk: unmarshall(record.dynamodb?.Keys as never).pk,
    newImage: image ? unmarshall(image as never) : undefined,
    sequenceNumber: record.dynamodb?.SequenceNumber,
  };
}

/** What the outbox does to its table: a message's own item, a group's item, a TTL-like delete. */
async function writeLikeTheOutbox(client: DynamoDBDocumentClient, TableName: string) {
  const groupUpdate = (batch: string) =>
    new UpdateCommand({
      TableName,
      Key: { pk: 'grp#g' },
      UpdateExpression: 'SET messages = :messages ADD seq :one',
      ExpressionAttributeValues: { ':messages': [batch], ':one': 1 },
    });
  await client.send(new PutCommand({ TableName, Item: { pk: 'msg#a', messages: ['a'] } }));
  await client.send(groupUpdate('g1'));
  // Written again as it is: DynamoDB Streams writes no record for a change that changes nothing.
  await client.send(new PutCommand({ TableName, Item: { pk: 'msg#a', messages: ['a'] } }));
  await client.send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName, Item: { pk: 'msg#b', messages: ['b'] } } },
        { Update: groupUpdate('g2').input as never },
      ],
    }),
  );
  await client.send(groupUpdate('g3'));
  await client.send(new DeleteCommand({ TableName, Key: { pk: 'msg#a' } }));
}

/** Each item's changes, in stream order, as event name and new image. */
function perItem(changes: readonly StreamChange[]) {
  const items = new Map<string, Array<[string | undefined, unknown]>>();
  for (const change of changes) {
    const pk = String(change.pk);
    items.set(pk, [...(items.get(pk) ?? []), [change.eventName, change.newImage]]);
  }
  return Object.fromEntries([...items].sort(([a], [b]) => a.localeCompare(b)));
}

const EXPECTED_PER_ITEM = {
  'grp#g': [
    ['INSERT', { pk: 'grp#g', messages: ['g1'], seq: 1 }],
    ['MODIFY', { pk: 'grp#g', messages: ['g2'], seq: 2 }],
    ['MODIFY', { pk: 'grp#g', messages: ['g3'], seq: 3 }],
  ],
  'msg#a': [
    ['INSERT', { pk: 'msg#a', messages: ['a'] }],
    ['REMOVE', undefined],
  ],
  'msg#b': [['INSERT', { pk: 'msg#b', messages: ['b'] }]],
};

describe.each([
  ['the emulator', emulatorTarget],
  ['SimStream, one shard', async () => simulatorTarget(1)],
  ['SimStream, four shards', async () => simulatorTarget(4)],
] as const)('a DynamoDB stream (new images) on %s', (_, connect) => {
  let target: StreamTarget;
  let changes: StreamChange[];

  beforeAll(async () => {
    target = await connect();
    await writeLikeTheOutbox(target.client, target.tableName);
    changes = await target.read();
  });
  afterAll(() => target.close());

  it("holds each item's changes once, in the order they were made, and none for a write that changed nothing", () => {
    expect(perItem(changes)).toEqual(EXPECTED_PER_ITEM);
  });

  it('numbers the records of an item in increasing sequence numbers', () => {
    const byItem = new Map<string, bigint[]>();
    for (const { pk, sequenceNumber } of changes) {
      byItem.set(String(pk), [...(byItem.get(String(pk)) ?? []), BigInt(sequenceNumber ?? '')]);
    }
    for (const numbers of byItem.values()) {
      expect(numbers).toEqual([...numbers].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    }
  });
});
