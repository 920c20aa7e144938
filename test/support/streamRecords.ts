import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/** A stream record as a test reads it: its event name, keys and new image, unmarshalled. */
export interface StreamChange {
  readonly eventName: string | undefined;
  readonly pk: unknown;
  readonly newImage: Record<string, unknown> | undefined;
  readonly sequenceNumber: string | undefined;
}

/**
 * Everything a table's stream holds, oldest first, read through the Streams API on the same
 * endpoint as DynamoDB (both emulators serve it there), across every shard.
 */
export async function readStream(
  dynamodb: DynamoDBClient,
  tableName: string,
): Promise<StreamChange[]> {
  return (await readStreamRecords(dynamodb, tableName)).records.map(toChange);
}

/** The stream's records as the Streams API returns them (typed images), and the stream's ARN. */
export async function readStreamRecords(
  dynamodb: DynamoDBClient,
  tableName: string,
): Promise<{ readonly streamArn: string; readonly records: _Record[] }> {
  const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: tableName }));
  const streamArn = Table?.LatestStreamArn;
  if (streamArn === undefined) throw new Error(`table ${tableName} has no stream`);
  const streams = new DynamoDBStreamsClient({
    endpoint: await endpointOf(dynamodb),
    region: await dynamodb.config.region(),
    credentials: await dynamodb.config.credentials(),
  });
  try {
    const { StreamDescription } = await streams.send(
      new DescribeStreamCommand({ StreamArn: streamArn }),
    );
    const records: _Record[] = [];
    for (const shard of StreamDescription?.Shards ?? []) {
      records.push(...(await readShard(streams, streamArn, shard.ShardId ?? '')));
    }
    return { streamArn, records };
  } finally {
    streams.destroy();
  }
}

/**
 * A Streams API record as an EventBridge pipe receives it, and without an input template sends
 * it on: the fields of the example event of
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-dynamodb.html, the images
 * in DynamoDB JSON as the Streams API returns them, `eventSource` and the stream's ARN added,
 * and `ApproximateCreationDateTime` in seconds as the Lambda records of the same pollers carry
 * it (the pipe example omits it; kept, it only makes the record larger).
 */
export function pipeEvent(record: _Record, streamArn: string): Record<string, unknown> {
  const { ApproximateCreationDateTime: created, ...change } = record.dynamodb ?? {};
  return {
    eventID: record.eventID,
    eventVersion: record.eventVersion,
    dynamodb: {
      ...(created === undefined
        ? {}
        : { ApproximateCreationDateTime: Math.floor(created.getTime() / 1000) }),
      ...change,
    },
    awsRegion: record.awsRegion,
    eventName: record.eventName,
    eventSourceARN: streamArn,
    eventSource: 'aws:dynamodb',
  };
}

async function readShard(streams: DynamoDBStreamsClient, streamArn: string, shardId: string) {
  const { ShardIterator } = await streams.send(
    new GetShardIteratorCommand({
      StreamArn: streamArn,
      ShardId: shardId,
      ShardIteratorType: 'TRIM_HORIZON',
    }),
  );
  const records: _Record[] = [];
  let iterator = ShardIterator;
  // An open shard always hands back a next iterator: stop at the first empty page.
  for (let page = 0; iterator !== undefined && page < 100; page += 1) {
    const { Records = [], NextShardIterator } = await streams.send(
      new GetRecordsCommand({ ShardIterator: iterator }),
    );
    if (Records.length === 0) break;
    records.push(...Records);
    iterator = NextShardIterator;
  }
  return records;
}

function toChange(record: _Record): StreamChange {
  const image = record.dynamodb?.NewImage;
  const keys = record.dynamodb?.Keys;
  return {
    eventName: record.eventName,
    pk: keys ? unmarshall(keys as never).pk : undefined,
    newImage: image ? unmarshall(image as never) : undefined,
    sequenceNumber: record.dynamodb?.SequenceNumber,
  };
}

async function endpointOf(client: DynamoDBClient): Promise<string> {
  const endpoint = await client.config.endpoint?.();
  if (endpoint === undefined) throw new Error('the test client has no endpoint');
  return `${endpoint.protocol}//${endpoint.hostname}${endpoint.port ? `:${endpoint.port}` : ''}${endpoint.path}`;
}
