import type { _Record, DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { InvalidConfigurationError } from '../errors.js';
import { BOUNDED_REQUEST_HANDLER } from './boundedRequestHandler.js';

/**
 * Where a batch Lambda gave up on lies in the stream: the `DDBStreamBatchInfo` of the record
 * its event source mapping sends to the on-failure destination.
 *
 * @example
 * ```ts
 * const info = (JSON.parse(body) as { DDBStreamBatchInfo: StreamBatchInfo }).DDBStreamBatchInfo;
 * ```
 */
export interface StreamBatchInfo {
  readonly streamArn: string;
  readonly shardId: string;
  readonly startSequenceNumber: string;
  readonly endSequenceNumber: string;
  readonly batchSize?: number;
}

// An open shard's reader meets empty pages before the end; a few pages more do no harm.
const MAX_EMPTY_PAGES = 3;

type StreamsModule = typeof import('@aws-sdk/client-dynamodb-streams');

/**
 * Reads a given-up batch back from the stream, from its first sequence number to its last, as
 * Lambda records (`eventSourceARN`, `ApproximateCreationDateTime` in seconds), ready for the
 * relay. Throws what the Streams API throws: `TrimmedDataAccessException` once the records are
 * older than the stream keeps (24 hours), `ResourceNotFoundException` for a stream disabled
 * since. `@aws-sdk/client-dynamodb-streams` (an optional peer dependency) is loaded on first use.
 *
 * @example
 * ```ts
 * const records = await readStreamBatch(info); // then relay.relayRecords({ Records: records })
 * ```
 */
export async function readStreamBatch(
  info: StreamBatchInfo,
  client?: DynamoDBStreamsClient,
): Promise<DynamoDBRecord[]> {
  const streams = await loadStreams();
  const reader =
    client ?? new streams.DynamoDBStreamsClient({ requestHandler: BOUNDED_REQUEST_HANDLER });
  const end = BigInt(info.endSequenceNumber);
  const { ShardIterator } = await reader.send(
    new streams.GetShardIteratorCommand({
      StreamArn: info.streamArn,
      ShardId: info.shardId,
      ShardIteratorType: 'AT_SEQUENCE_NUMBER',
      SequenceNumber: info.startSequenceNumber,
    }),
  );
  const records: DynamoDBRecord[] = [];
  let iterator = ShardIterator;
  let emptyPages = 0;
  while (iterator !== undefined && emptyPages < MAX_EMPTY_PAGES) {
    const page = await reader.send(new streams.GetRecordsCommand({ ShardIterator: iterator }));
    const found = page.Records ?? [];
    emptyPages = found.length === 0 ? emptyPages + 1 : 0;
    for (const record of found) {
      if (BigInt(record.dynamodb?.SequenceNumber ?? '0') > end) return records;
      records.push(toLambdaRecord(record, info.streamArn));
    }
    if (records.length > 0 && lastSequence(records) === end) return records;
    iterator = page.NextShardIterator;
  }
  return records;
}

async function loadStreams(): Promise<StreamsModule> {
  try {
    return await import('@aws-sdk/client-dynamodb-streams');
  } catch {
    throw new InvalidConfigurationError(
      'streamsClient',
      undefined,
      'the package @aws-sdk/client-dynamodb-streams installed, to read a given-up batch back from the stream',
    );
  }
}

function lastSequence(records: readonly DynamoDBRecord[]): bigint {
  return BigInt(records[records.length - 1]?.dynamodb?.SequenceNumber ?? '0');
}

/** A Streams API record in the shape Lambda hands to a function. */
function toLambdaRecord(record: _Record, streamArn: string): DynamoDBRecord {
  const change = record.dynamodb;
  const created = change?.ApproximateCreationDateTime;
  return {
    eventID: record.eventID,
    eventName: record.eventName as DynamoDBRecord['eventName'],
    eventVersion: record.eventVersion,
    eventSource: 'aws:dynamodb',
    awsRegion: record.awsRegion,
    eventSourceARN: streamArn,
    dynamodb: {
      ...(change as NonNullable<DynamoDBRecord['dynamodb']>),
      ...(created === undefined
        ? {}
        : { ApproximateCreationDateTime: Math.floor(new Date(created).getTime() / 1000) }),
    },
  };
}
