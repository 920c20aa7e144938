import type { SQSEvent } from 'aws-lambda';
import type { Kernel } from '../kernel/Kernel.js';
import type { Prng } from '../kernel/Prng.js';
import { FaultKind } from '../network/Network.js';
import type { SimQueue } from '../sqs/SimQueue.js';
import type { FaultRates } from '../world/WorldConfig.js';
import type { SimLambda } from './SimLambda.js';

const EMPTY_POLL_MILLIS = 1_000;

/**
 * The Lambda event source mapping of an SQS queue: `pollers` loops that each receive up to
 * `batchSize` messages, invoke the function with them, and delete the records its partial batch
 * response does not list. A batch whose invocation died or timed out is not deleted at all: its
 * messages come back after the visibility timeout.
 *
 * @example
 * ```ts
 * new EventSourceMapping(kernel, random, { queue, lambda, batchSize: 10, pollers: 2, faults }).start();
 * ```
 */
export class EventSourceMapping {
  readonly #kernel: Kernel;
  readonly #random: Prng;
  readonly #queue: SimQueue;
  readonly #lambda: SimLambda;
  readonly #batchSize: number;
  readonly #pollers: number;
  readonly #faults: FaultRates;

  constructor(
    kernel: Kernel,
    random: Prng,
    options: {
      readonly queue: SimQueue;
      readonly lambda: SimLambda;
      readonly batchSize: number;
      readonly pollers: number;
      readonly faults: FaultRates;
    },
  ) {
    this.#kernel = kernel;
    this.#random = random;
    this.#queue = options.queue;
    this.#lambda = options.lambda;
    this.#batchSize = options.batchSize;
    this.#pollers = options.pollers;
    this.#faults = options.faults;
  }

  /** Starts the pollers; they poll for as long as the world runs. */
  start(): void {
    for (let poller = 1; poller <= this.#pollers; poller++) void this.#poll(`esm-${poller}`);
  }

  async #poll(actor: string): Promise<void> {
    for (;;) {
      await this.#kernel.sleep(actor, this.#random.latencyMillis(5, 50), 'receives');
      const messages = this.#queue.receive(this.#batchSize, this.#kernel.nowMillis);
      if (messages.length === 0) {
        await this.#kernel.sleep(actor, EMPTY_POLL_MILLIS, 'finds the queue empty');
        continue;
      }
      const event: SQSEvent = { Records: messages.map((message) => this.#queue.toRecord(message)) };
      const invocation = await this.#lambda.invoke(event);
      const failed = new Set(invocation.failedMessageIds);
      const done = event.Records.filter((record) => !failed.has(record.messageId));
      if (done.length === 0) continue;
      await this.#kernel.sleep(actor, this.#random.latencyMillis(5, 50), `deletes ${done.length}`);
      for (const record of done) {
        const keepStale =
          this.#kernel.nowMillis < this.#faults.untilMillis &&
          this.#random.chance(this.#faults.staleDeleteKept);
        if (keepStale) invocation.faults.add(FaultKind.StaleDeleteKept);
        this.#queue.delete(record.receiptHandle, keepStale);
      }
    }
  }
}
