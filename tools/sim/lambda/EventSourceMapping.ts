import type { SQSEvent } from 'aws-lambda';
import type { Kernel } from '../kernel/Kernel.js';
import type { Prng } from '../kernel/Prng.js';
import type { SimQueue } from '../sqs/SimQueue.js';
import type { FaultRates } from '../world/WorldConfig.js';
import type { SimLambda } from './SimLambda.js';

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
  readonly #lambda: Pick<SimLambda, 'invoke'>;
  readonly #batchSize: number;
  readonly #pollers: number;
  readonly #faults: FaultRates;
  /** Pollers waiting in a long poll, woken by a send or a message brought back sooner. */
  #waiting: Array<() => void> = [];

  constructor(
    kernel: Kernel,
    random: Prng,
    options: {
      readonly queue: SimQueue;
      readonly lambda: Pick<SimLambda, 'invoke'>;
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
    const wakeAll = () => {
      for (const wake of this.#waiting.splice(0)) wake();
    };
    this.#queue.onSend(wakeAll);
    this.#queue.onVisibleSooner(wakeAll);
  }

  /** Starts the pollers; they poll for as long as the world runs. */
  start(): void {
    for (let poller = 1; poller <= this.#pollers; poller++) void this.#poll(`esm-${poller}`);
  }

  /**
   * Waits until a message is sent, a hidden one becomes visible again, or a visibility change
   * brings one back sooner than the poll was set to wait for. Real pollers repeat
   * 20-second long polls on an empty queue; those empty answers change nothing, so they are not
   * simulated.
   */
  #longPoll(actor: string): Promise<void> {
    const now = this.#kernel.nowMillis;
    const visibleAtMillis = this.#queue.nextVisibleAtMillis(now);
    return new Promise((resolve) => {
      const wake = () => {
        cancel();
        this.#kernel.schedule({ actor, label: 'long poll gets a message', run: resolve });
      };
      const cancel =
        visibleAtMillis === undefined
          ? () => {}
          : this.#kernel.schedule({
              actor,
              label: 'long poll ends',
              delayMillis: visibleAtMillis - now,
              run: () => {
                this.#waiting = this.#waiting.filter((waiting) => waiting !== wake);
                resolve();
              },
            });
      this.#waiting.push(wake);
    });
  }

  async #poll(actor: string): Promise<void> {
    for (;;) {
      await this.#kernel.sleep(actor, this.#random.latencyMillis(5, 50), 'receives');
      const messages = this.#queue.receive(this.#batchSize, this.#kernel.nowMillis);
      if (messages.length === 0) {
        await this.#longPoll(actor);
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
        // Not a fault of the invocation: it answered already, and it explains no failure of it.
        this.#queue.delete(record.receiptHandle, keepStale);
      }
    }
  }
}
