import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import {
  type GiveUpCondition,
  type StreamRetryPolicy,
  settleStreamBatch,
} from './settleStreamBatch.js';

/** A stream mapping's settings, as the construct gives them to Lambda. */
export interface LocalStreamMappingOptions extends StreamRetryPolicy {
  readonly tableName: string;
  readonly handler: (
    event: { Records: DynamoDBRecord[] },
    context: Context,
  ) => Promise<DynamoDBBatchResponse | undefined>;
  readonly clients: {
    readonly dynamodb: DynamoDBClient;
    readonly streams: DynamoDBStreamsClient;
    readonly sqs: SQSClient;
  };
  readonly batchSize: number;
  /** The event names the mapping's filter lets through (`INSERT`, `MODIFY`). */
  readonly eventNames: readonly string[];
  /** The standard queue Lambda sends a given-up batch's metadata to. */
  readonly onFailureQueueUrl?: string;
  readonly functionName?: string;
  readonly timeoutMillis?: number;
  readonly pollMillis?: number;
}

/**
 * Lambda's event source mapping on a DynamoDB stream, locally, with the semantics MiniStack's
 * own mapping leaves out (partial batch responses, bisect, the retry limit): it reads every
 * shard from its start, parents before children, filters, hands batches to the handler in
 * order, and settles each batch as Lambda does (`settleStreamBatch`). Given-up batches go to
 * the on-failure queue as Lambda's metadata record (`DDBStreamBatchInfo`), without the records.
 */
export class LocalStreamMapping {
  readonly #options: LocalStreamMappingOptions;
  readonly #iterators = new Map<string, string | undefined>();
  readonly #finished = new Set<string>();
  /** The last record read from each shard: where a fresh iterator starts after it. */
  readonly #lastRead = new Map<string, string>();
  #streamArn = '';
  #stopping = false;
  #loop: Promise<void> | undefined;
  #emptyPolls = 0;
  #invocations = 0;

  constructor(options: LocalStreamMappingOptions) {
    this.#options = options;
  }

  /** Invocations of the handler so far. */
  get invocations(): number {
    return this.#invocations;
  }

  async start(): Promise<void> {
    const { Table } = await this.#options.clients.dynamodb.send(
      new DescribeTableCommand({ TableName: this.#options.tableName }),
    );
    if (!Table?.LatestStreamArn) throw new Error(`table ${this.#options.tableName} has no stream`);
    this.#streamArn = Table.LatestStreamArn;
    this.#loop = this.#run();
  }

  /** Resolves once a poll after this call found nothing new: what was written before is settled. */
  async drain(timeoutMillis = 30_000): Promise<void> {
    const target = this.#emptyPolls + 2;
    const until = Date.now() + timeoutMillis;
    while (this.#emptyPolls < target) {
      if (Date.now() > until)
        throw new Error(`the stream of ${this.#options.tableName} did not drain`);
      await pause(50);
    }
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#loop;
  }

  async #run(): Promise<void> {
    while (!this.#stopping) {
      const { found, complete } = await this.#pollOnce().catch((error: unknown) => {
        console.error(`[stream ${this.#options.tableName}] ${(error as Error).message}`);
        return { found: 0, complete: false };
      });
      if (found === 0) {
        // Only a poll that read every shard shows the stream drained (not one whose iterator
        // had to be replaced, which read nothing).
        if (complete) this.#emptyPolls += 1;
        await pause(this.#options.pollMillis ?? 100);
      }
    }
  }

  /** Reads each open shard once; returns how many records it handed on, and if it read them all. */
  async #pollOnce(): Promise<{ found: number; complete: boolean }> {
    let found = 0;
    let complete = true;
    for (const shard of await this.#readyShards()) {
      const shardId = shard.ShardId ?? '';
      const page = await this.#read(shardId);
      if (page === undefined) {
        complete = false;
        continue;
      }
      const { Records = [], NextShardIterator } = page;
      const lastSequenceNumber = Records[Records.length - 1]?.dynamodb?.SequenceNumber;
      if (lastSequenceNumber !== undefined) this.#lastRead.set(shardId, lastSequenceNumber);
      const records = Records.map((record) => this.#toLambdaRecord(record)).filter((record) =>
        this.#options.eventNames.includes(String(record.eventName)),
      );
      for (let at = 0; at < records.length && !this.#stopping; at += this.#options.batchSize) {
        await this.#settle(records.slice(at, at + this.#options.batchSize), shardId);
      }
      found += Records.length;
      this.#iterators.set(shardId, NextShardIterator);
      if (NextShardIterator === undefined) this.#finished.add(shardId);
    }
    return { found, complete };
  }

  /** Open shards whose parent is done (or unknown, trimmed away). */
  async #readyShards(): Promise<Shard[]> {
    const { StreamDescription } = await this.#options.clients.streams.send(
      new DescribeStreamCommand({ StreamArn: this.#streamArn }),
    );
    const shards = StreamDescription?.Shards ?? [];
    const known = new Set(shards.map((shard) => shard.ShardId));
    return shards.filter(
      (shard) =>
        !this.#finished.has(shard.ShardId ?? '') &&
        (shard.ParentShardId === undefined ||
          !known.has(shard.ParentShardId) ||
          this.#finished.has(shard.ParentShardId)),
    );
  }

  /**
   * One page of a shard. An iterator that expired (15 minutes) or that DynamoDB Local calls
   * trimmed (after empty polls of a young shard) is replaced by one after the last record read.
   */
  async #read(shardId: string) {
    try {
      const iterator = await this.#iteratorOf(shardId);
      return await this.#options.clients.streams.send(
        new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }),
      );
    } catch (error) {
      const name = (error as Error).name;
      if (name !== 'ExpiredIteratorException' && name !== 'TrimmedDataAccessException') throw error;
      this.#iterators.delete(shardId);
      return undefined;
    }
  }

  async #iteratorOf(shardId: string): Promise<string | undefined> {
    if (this.#iterators.has(shardId)) return this.#iterators.get(shardId);
    const after = this.#lastRead.get(shardId);
    const { ShardIterator } = await this.#options.clients.streams.send(
      new GetShardIteratorCommand({
        StreamArn: this.#streamArn,
        ShardId: shardId,
        ...(after === undefined
          ? { ShardIteratorType: 'TRIM_HORIZON' }
          : { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }),
      }),
    );
    return ShardIterator;
  }

  async #settle(records: DynamoDBRecord[], shardId: string): Promise<void> {
    await settleStreamBatch(records, this.#options, {
      invoke: (batch) => {
        this.#invocations += 1;
        return this.#options.handler({ Records: batch }, this.#context());
      },
      nowMillis: Date.now,
      sleep: pause,
      giveUp: (given, condition, invokeCount) =>
        this.#giveUp(given, condition, invokeCount, shardId),
    });
  }

  #context(): Context {
    const started = Date.now();
    const timeoutMillis = this.#options.timeoutMillis ?? 60_000;
    return {
      functionName: this.#options.functionName ?? 'outbox-relay',
      awsRequestId: `local-${started}-${this.#invocations}`,
      getRemainingTimeInMillis: () => timeoutMillis - (Date.now() - started),
    } as Context;
  }

  async #giveUp(
    records: DynamoDBRecord[],
    condition: GiveUpCondition,
    invokeCount: number,
    shardId: string,
  ) {
    const first = records[0]?.dynamodb;
    const last = records[records.length - 1]?.dynamodb;
    const arrival = (seconds: number | undefined) => new Date((seconds ?? 0) * 1000).toISOString();
    const body = {
      requestContext: {
        requestId: `local-${Date.now()}`,
        functionArn: `arn:aws:lambda:local:000000000000:function:${this.#options.functionName ?? 'outbox-relay'}`,
        condition,
        approximateInvokeCount: invokeCount,
      },
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      version: '1.0',
      timestamp: new Date().toISOString(),
      DDBStreamBatchInfo: {
        shardId,
        startSequenceNumber: first?.SequenceNumber,
        endSequenceNumber: last?.SequenceNumber,
        approximateArrivalOfFirstRecord: arrival(first?.ApproximateCreationDateTime),
        approximateArrivalOfLastRecord: arrival(last?.ApproximateCreationDateTime),
        batchSize: records.length,
        streamArn: this.#streamArn,
      },
    };
    if (this.#options.onFailureQueueUrl === undefined) return;
    await this.#options.clients.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.#options.onFailureQueueUrl,
        MessageBody: JSON.stringify(body),
      }),
    );
  }

  #toLambdaRecord(record: _Record): DynamoDBRecord {
    const change = record.dynamodb;
    const created = change?.ApproximateCreationDateTime;
    return {
      eventID: record.eventID,
      eventName: record.eventName as DynamoDBRecord['eventName'],
      eventVersion: record.eventVersion,
      eventSource: 'aws:dynamodb',
      awsRegion: record.awsRegion,
      eventSourceARN: this.#streamArn,
      dynamodb: {
        ...(change as NonNullable<DynamoDBRecord['dynamodb']>),
        ...(created === undefined
          ? {}
          : { ApproximateCreationDateTime: Math.floor(new Date(created).getTime() / 1000) }),
      },
    };
  }
}

function pause(millis: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, millis));
}
