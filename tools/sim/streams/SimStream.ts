import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import type { ChangeRecord } from '../../../src/testing/dynamo/ChangeLog.js';
import { hash32 } from '../kernel/Prng.js';
import { WORLD_EPOCH_MILLIS } from '../lambda/SimLambda.js';

/**
 * One table's DynamoDB stream (view type new image), derived from the simulator's change log
 * with the guarantees DynamoDB Streams gives and no more: each item's changes appear exactly
 * once, in the order they were made, all in one shard (the item's key hashes to it); changes
 * of different items hash to different shards, which the event source mapping reads
 * independently, so across items their order is not kept. The emulators serve one shard in
 * global order; this model is what shows a design that leans on more than DynamoDB promises.
 *
 * @example
 * ```ts
 * const stream = new SimStream(() => dynamo.changes, 'outbox', 3, changeMillis);
 * const batch = stream.read(0, 0, 100);
 * ```
 */
export class SimStream {
  readonly tableName: string;
  readonly shards: number;
  readonly #changes: () => readonly ChangeRecord[];
  readonly #changeMillis: readonly number[];
  readonly #records: DynamoDBRecord[][];
  #scanned = 0;

  constructor(
    changes: () => readonly ChangeRecord[],
    tableName: string,
    shards: number,
    changeMillis: readonly number[],
  ) {
    this.#changes = changes;
    this.tableName = tableName;
    this.shards = shards;
    this.#changeMillis = changeMillis;
    this.#records = Array.from({ length: shards }, () => []);
  }

  /** Every record of every shard so far, each shard in its order. */
  get records(): readonly (readonly DynamoDBRecord[])[] {
    this.#catchUp();
    return this.#records;
  }

  /** The shard an item's changes go to. */
  shardOf(keys: ChangeRecord['keys']): number {
    return hash32(JSON.stringify(keys)) % this.shards;
  }

  /** Up to `limit` records of `shard` from position `from` on. */
  read(shard: number, from: number, limit: number): DynamoDBRecord[] {
    this.#catchUp();
    return (this.#records[shard] ?? []).slice(from, from + limit);
  }

  /** Records of `shard` at or after position `from`. */
  available(shard: number, from: number): number {
    this.#catchUp();
    return Math.max(0, (this.#records[shard]?.length ?? 0) - from);
  }

  #catchUp(): void {
    const changes = this.#changes();
    for (; this.#scanned < changes.length; this.#scanned++) {
      const change = changes[this.#scanned] as ChangeRecord;
      if (change.tableName !== this.tableName) continue;
      const millis = this.#changeMillis[this.#scanned] ?? 0;
      this.#records[this.shardOf(change.keys)]?.push(toStreamRecord(change, millis));
    }
  }
}

/**
 * A change as Lambda hands it over: event name, keys, new image, sequence number, time.
 *
 * @example
 * ```ts
 * const record = toStreamRecord(dynamo.changes[0], 1_000);
 * ```
 */
export function toStreamRecord(change: ChangeRecord, atMillis: number): DynamoDBRecord {
  const eventName =
    change.newImage === undefined ? 'REMOVE' : change.oldImage === undefined ? 'INSERT' : 'MODIFY';
  return {
    eventID: `change-${change.sequence}`,
    eventName,
    eventSource: 'aws:dynamodb',
    eventVersion: '1.1',
    awsRegion: 'us-east-1',
    dynamodb: {
      ApproximateCreationDateTime: Math.floor((WORLD_EPOCH_MILLIS + atMillis) / 1000),
      Keys: change.keys as Record<string, AttributeValue>,
      ...(change.newImage ? { NewImage: change.newImage as Record<string, AttributeValue> } : {}),
      // Increasing within a shard, as DynamoDB's are (a number in a string).
      SequenceNumber: String(change.sequence).padStart(21, '0'),
      StreamViewType: 'NEW_IMAGE',
    },
  };
}
