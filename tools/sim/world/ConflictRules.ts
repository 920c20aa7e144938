import type { DynamoOperation } from '../../../src/testing/dynamo/SimDocumentClient.js';
import { isConflictAnswer } from '../../../src/testing/dynamo/SimDynamoDB.js';
import type { Kernel } from '../kernel/Kernel.js';
import type { Prng } from '../kernel/Prng.js';
import { REQUEST_TIMEOUT_MILLIS, type RequestOptions } from '../network/Network.js';

/**
 * How long a `TransactWriteItems` holds its items at the server: drawn uniformly per request.
 * DynamoDB publishes no transaction latency: single-item writes take single-digit milliseconds
 * at the server and a transaction runs two phases of them. Issue 30's bench models a small
 * transaction's p50 round trip at about 25 ms (some 40 commits a second on one item); here that
 * is this hold (17.5 ms on average) plus the network's two legs (2–40 ms each, skewed short,
 * about 7 ms at the median). 5–30 ms keeps a hot item's ceiling on that scale, with the spread
 * of real latencies (some transactions several times slower than others).
 */
export const TRANSACTION_SERVICE_MILLIS = { min: 5, max: 30 } as const;

/**
 * How a world names the sender of a DynamoDB request: the invocation that began the work, of
 * the consumer (`lambda`) or of the downstream consumer (`credits`).
 *
 * @example
 * ```ts
 * rules.request(operation, senderName('lambda', caller.invocationId));
 * ```
 */
export function senderName(functionName: string, invocationId: number | undefined) {
  return invocationId === undefined ? undefined : `${functionName} invocation ${invocationId}`;
}

/**
 * DynamoDB's transaction-conflict rules in a world (see `ItemHolds`): each DynamoDB request is
 * applied with the world's time, and a `TransactWriteItems` with a service time drawn from the
 * world's random source, for which it holds its items and after which its answer leaves; an
 * answer refusing a request because of a held item is noted on it as contention. Off (the
 * default of a world pinned before the rules existed), requests apply as before and nothing
 * is drawn, so those worlds replay unchanged.
 *
 * @example
 * ```ts
 * const { apply, options } = rules.request(operation);
 * await network.call(caller, 'dynamodb', operation.name, apply, { ...options, tag });
 * ```
 */
export class ConflictRules {
  readonly #kernel: Kernel;
  readonly #serviceTimes: Prng | undefined;

  /** `serviceTimes`: the random source of the service times; none turns the rules off. */
  constructor(kernel: Kernel, serviceTimes: Prng | undefined) {
    this.#kernel = kernel;
    this.#serviceTimes = serviceTimes;
  }

  /** Whether the world models conflicts. */
  get on(): boolean {
    return this.#serviceTimes !== undefined;
  }

  /**
   * How to send a request sent now: what applies it at the server, with the time it arrives
   * there and who sent it (`by`), and the network options its service time and its contention
   * need. A copy the network applies again, and a request applied after its SDK timeout (held
   * back, or slowed: its sender has given up on it and may have sent it again), carry no sender:
   * they are no commits their sender could have waited for.
   */
  request(
    operation: DynamoOperation,
    by?: string,
  ): {
    readonly apply: () => unknown;
    readonly options: Pick<RequestOptions, 'serviceMillis' | 'contended'>;
  } {
    const random = this.#serviceTimes;
    if (random === undefined) return { apply: () => operation.apply(), options: {} };
    const holdMillis =
      operation.name === 'TransactWriteItems'
        ? random.int(TRANSACTION_SERVICE_MILLIS.min, TRANSACTION_SERVICE_MILLIS.max)
        : 0;
    let applied = 0;
    const sentMillis = this.#kernel.nowMillis;
    return {
      apply: () => {
        const late = this.#kernel.nowMillis - sentMillis >= REQUEST_TIMEOUT_MILLIS;
        const sender = applied++ > 0 || late ? undefined : by;
        return operation.apply({
          nowMillis: this.#kernel.nowMillis,
          holdMillis,
          ...(sender === undefined ? {} : { by: sender }),
        });
      },
      options: { serviceMillis: holdMillis, contended: isConflictAnswer },
    };
  }
}
