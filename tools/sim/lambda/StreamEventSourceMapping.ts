import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import {
  type GiveUpCondition,
  type StreamRetryPolicy,
  settleStreamBatch,
} from '../../local/settleStreamBatch.js';
import type { Kernel } from '../kernel/Kernel.js';
import type { Prng } from '../kernel/Prng.js';
import type { SimStream } from '../streams/SimStream.js';
import { type SimLambda, WORLD_EPOCH_MILLIS } from './SimLambda.js';

/**
 * Records Lambda gave up on (the on-failure destination's metadata), and why.
 *
 * @example
 * ```ts
 * const lost = mapping.givenUp.flatMap((batch) => batch.records);
 * ```
 */
export interface GivenUpBatch {
  readonly shard: number;
  readonly records: readonly DynamoDBRecord[];
  readonly condition: GiveUpCondition;
  readonly atMillis: number;
}

/**
 * The Lambda event source mapping of a DynamoDB stream: one poller per shard, each handing
 * its shard's records to the function in order, a batch at a time, settled as Lambda settles
 * a stream batch (the same `settleStreamBatch` the local runner uses: partial batch responses,
 * bisect on error, the retry limit, the record age), before it reads on. A batch whose
 * invocation was killed or timed out is a function error. The mapping's filter lets through
 * `INSERT` and `MODIFY`, as the construct's does.
 *
 * @example
 * ```ts
 * new StreamEventSourceMapping(kernel, random, { stream, lambda, batchSize: 100, policy }).start();
 * ```
 */
export class StreamEventSourceMapping {
  readonly givenUp: GivenUpBatch[] = [];
  readonly #kernel: Kernel;
  readonly #random: Prng;
  readonly #stream: SimStream;
  readonly #lambda: SimLambda<DynamoDBStreamEvent>;
  readonly #batchSize: number;
  readonly #policy: StreamRetryPolicy;
  readonly #positions: number[];
  #settling = 0;
  #waiting: Array<() => void> = [];

  constructor(
    kernel: Kernel,
    random: Prng,
    options: {
      readonly stream: SimStream;
      readonly lambda: SimLambda<DynamoDBStreamEvent>;
      readonly batchSize: number;
      readonly policy: StreamRetryPolicy;
    },
  ) {
    this.#kernel = kernel;
    this.#random = random;
    this.#stream = options.stream;
    this.#lambda = options.lambda;
    this.#batchSize = options.batchSize;
    this.#policy = options.policy;
    this.#positions = Array.from({ length: options.stream.shards }, () => 0);
  }

  /** Whether every record written so far has been settled (relayed or given up). */
  get caughtUp(): boolean {
    return (
      this.#settling === 0 &&
      this.#positions.every((position, shard) => this.#stream.available(shard, position) === 0)
    );
  }

  /** Starts one poller per shard; they poll for as long as the world runs. */
  start(): void {
    for (let shard = 0; shard < this.#stream.shards; shard++) void this.#poll(shard);
  }

  /** Wakes pollers waiting on an empty shard: the table changed. */
  notify(): void {
    for (const wake of this.#waiting.splice(0)) wake();
  }

  async #poll(shard: number): Promise<void> {
    const actor = `stream-${shard}`;
    for (;;) {
      // Lambda polls each shard about four times a second.
      await this.#kernel.sleep(actor, this.#random.latencyMillis(50, 500), 'polls its shard');
      const position = this.#positions[shard] ?? 0;
      const batch = this.#stream.read(shard, position, this.#batchSize);
      if (batch.length === 0) {
        await this.#changed(actor);
        continue;
      }
      this.#settling++;
      const records = batch.filter((r) => r.eventName === 'INSERT' || r.eventName === 'MODIFY');
      if (records.length > 0)
        await settleStreamBatch(records, this.#policy, this.#deps(actor, shard));
      this.#positions[shard] = position + batch.length;
      this.#settling--;
    }
  }

  /** Resolves at the next change of the table (a step of the poller). */
  #changed(actor: string): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(() =>
        this.#kernel.schedule({ actor, label: 'shard has new records', run: resolve }),
      );
    });
  }

  #deps(actor: string, shard: number) {
    return {
      invoke: async (records: DynamoDBRecord[]): Promise<DynamoDBBatchResponse | undefined> => {
        const invocation = await this.#lambda.invoke({ Records: records });
        if (invocation.end !== 'response') throw new Error(`the relay ${invocation.end}`);
        return {
          batchItemFailures: invocation.failedMessageIds.map((id) => ({ itemIdentifier: id })),
        };
      },
      nowMillis: () => WORLD_EPOCH_MILLIS + this.#kernel.nowMillis,
      sleep: (millis: number) => this.#kernel.sleep(actor, millis, 'backs off'),
      giveUp: async (records: DynamoDBRecord[], condition: GiveUpCondition) => {
        this.givenUp.push({ shard, records, condition, atMillis: this.#kernel.nowMillis });
      },
    };
  }
}
