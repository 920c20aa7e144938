import type { _Record, DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { InvalidConfigurationError, StreamBatchIncompleteError } from '../errors.js';
import { BOUNDED_REQUEST_HANDLER } from './boundedRequestHandler.js';

/**
 * Where a batch Lambda gave up on lies in the stream: the `DDBStreamBatchInfo` of the record
 * its event source mapping sends to the on-failure destination.
 *
 * @example
 * ```ts
 * const info = (JSON.parse(record.body) as { DDBStreamBatchInfo: StreamBatchInfo }).DDBStreamBatchInfo;
 * ```
 * @public
 */
export interface StreamBatchInfo {
  /** The ARN of the outbox table's stream; the default client works in its region. */
  readonly streamArn: string;
  /** The shard the batch was read from. */
  readonly shardId: string;
  /** The sequence number of the batch's first record: reading back starts there. */
  readonly startSequenceNumber: string;
  /** The sequence number of the batch's last record: reading back ends there. */
  readonly endSequenceNumber: string;
  /** How many records the batch held, as Lambda reports it; the reader does not use it. */
  readonly batchSize?: number;
}

// An open shard may answer empty pages before records that exist: read on, up to this many.
const MAX_PAGES = 100;

type StreamsModule = typeof import('@aws-sdk/client-dynamodb-streams');

/**
 * Reads a given-up batch back from the stream, from its first sequence number to its last, as
 * Lambda records (`eventSourceARN`, `ApproximateCreationDateTime` in seconds), ready for the
 * relay. Returns only the whole batch: when its last record cannot be reached it throws
 * `StreamBatchIncompleteError`, never passing part of it off as the batch; and it throws what
 * the Streams API throws: `TrimmedDataAccessException` once the records are older than the
 * stream keeps (24 hours), `ResourceNotFoundException` for a stream disabled since. The default
 * client works in the stream's own region. `@aws-sdk/client-dynamodb-streams` (an optional peer
 * dependency) is loaded on first use.
 *
 * @example
 * ```ts
 * declare const info: StreamBatchInfo;
 * // ---cut---
 * const records = await readStreamBatch(info); // then relay.relayRecords({ Records: records })
 * ```
 * @public
 */
export async function readStreamBatch(
  info: StreamBatchInfo,
  client?: DynamoDBStreamsClient,
): Promise<DynamoDBRecord[]> {
  const streams = await loadStreams();
  const reader = client ?? defaultClient(streams, info.streamArn);
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
  for (let pages = 0; iterator !== undefined && pages < MAX_PAGES; pages++) {
    const page = await reader.send(new streams.GetRecordsCommand({ ShardIterator: iterator }));
    for (const record of page.Records ?? []) {
      const sequence = BigInt(record.dynamodb?.SequenceNumber ?? '0');
      // Past the end without meeting it: the last record is gone (Lambda names one it read).
      if (sequence > end)
        throw new StreamBatchIncompleteError(info.endSequenceNumber, records.length);
      records.push(toLambdaRecord(record, info.streamArn));
      if (sequence === end) return records;
    }
    iterator = page.NextShardIterator;
  }
  throw new StreamBatchIncompleteError(info.endSequenceNumber, records.length);
}

// One default client per region, built on first use and kept: a redrive reads many batches.
const defaultClients = new Map<string, DynamoDBStreamsClient>();

function defaultClient(streams: StreamsModule, streamArn: string): DynamoDBStreamsClient {
  const { region } = regionOf(streamArn);
  const key = region ?? '';
  let client = defaultClients.get(key);
  if (client === undefined) {
    client = new streams.DynamoDBStreamsClient({
      requestHandler: BOUNDED_REQUEST_HANDLER,
      ...(region === undefined ? {} : { region }),
    });
    defaultClients.set(key, client);
  }
  return client;
}

/** The stream's region, from its ARN (`arn:aws:dynamodb:<region>:…`), when it names one. */
function regionOf(streamArn: string): { region?: string } {
  const region = streamArn.split(':')[3];
  return region ? { region } : {};
}

async function loadStreams(): Promise<StreamsModule> {
  try {
    return await import('@aws-sdk/client-dynamodb-streams');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw error;
    throw new InvalidConfigurationError(
      'streamsClient',
      undefined,
      'the package @aws-sdk/client-dynamodb-streams installed, to read a given-up batch back from the stream',
    );
  }
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
