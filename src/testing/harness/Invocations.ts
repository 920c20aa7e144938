import { AsyncLocalStorage } from 'node:async_hooks';
import type { InboxRuntime } from '../../runtime/InboxRuntime.js';
import type { DynamoOperation } from '../dynamo/SimDocumentClient.js';
import type { InMemoryDynamoDB } from '../InMemoryDynamoDB.js';
import { interceptRequests } from '../requestInterceptors.js';
import type { InMemoryQueues, QueueRequest } from '../sqs/InMemoryQueues.js';
import type { CrashPoint } from './BatchRun.js';
import type { TestClock } from './TestClock.js';

interface Invocation {
  readonly crash: CrashPoint | undefined;
  dead: boolean;
  die(): void;
}

/** A promise that never settles, one per wait, so that a dead invocation's chain can be freed. */
const never = () => new Promise<never>(() => {});

/**
 * The harness's invocations: each `run` is one, known to the requests and timers it starts (by
 * `AsyncLocalStorage`), so that one that dies stops there — its requests to the tables and to
 * the queues get no answer, its timers (a lease's heartbeat) never fire — as a crashed Lambda's
 * do.
 */
export class Invocations {
  readonly #current = new AsyncLocalStorage<Invocation>();

  constructor(dynamo: InMemoryDynamoDB, queues: InMemoryQueues, inboxTable: string) {
    interceptRequests<QueueRequest>(queues, () =>
      this.#current.getStore()?.dead ? never() : undefined,
    );
    interceptRequests<DynamoOperation>(dynamo, (operation) => {
      const invocation = this.#current.getStore();
      if (invocation === undefined) return undefined;
      if (invocation.dead) return never();
      const crash = invocation.crash;
      if (crash === undefined || !journals(operation, inboxTable, crash)) return undefined;
      // Its effect happened; the journal write lands (or not), and the invocation dies.
      if (crash.journaled !== false) operation.apply();
      invocation.die();
      return never();
    });
  }

  /** The runtime to give the processor: the clock's, with timers that die with their invocation. */
  runtime(clock: TestClock): InboxRuntime {
    return {
      now: () => clock.now(),
      // A dead invocation's wait never ends, and does not move the clock.
      sleep: (millis) => (this.#current.getStore()?.dead ? never() : clock.sleep(millis)),
      random: () => clock.random(),
      startTimer: (millis, callback) => {
        const owner = this.#current.getStore();
        if (owner === undefined) return clock.startTimer(millis, callback);
        // Its callback runs as part of its invocation (a heartbeat's request too), or not at all.
        const fire = () => (owner.dead ? undefined : this.#current.run(owner, callback));
        return clock.startTimer(millis, fire);
      },
    };
  }

  /** Runs one invocation: its result, or `crashed` when it died at its crash point. */
  async invoke<T>(crash: CrashPoint | undefined, work: () => Promise<T>): Promise<T | 'crashed'> {
    let die = () => {};
    const died = new Promise<'crashed'>((resolve) => {
      die = () => resolve('crashed');
    });
    const invocation: Invocation = {
      crash,
      dead: false,
      die: () => {
        invocation.dead = true;
        die();
      },
    };
    return Promise.race([this.#current.run(invocation, work), died]);
  }
}

/**
 * Whether a request is the crash point's journal write: the update that records its step on an
 * entry (the first record of the batch to journal it: the whole invocation dies with it).
 */
function journals(operation: DynamoOperation, inboxTable: string, crash: CrashPoint): boolean {
  if (operation.name !== 'UpdateItem' || !operation.tableNames.includes(inboxTable)) return false;
  const names = (operation.input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const update = String(operation.input.UpdateExpression ?? '');
  return Object.entries(names).some(
    ([placeholder, name]) => name === crash.afterStep && update.includes(`.${placeholder}`),
  );
}
