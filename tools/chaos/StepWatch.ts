import { setTimeout as sleep } from 'node:timers/promises';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { inboxPk } from 'sqs-inbox/constants';
import type { CrashSwitch } from './CrashSwitch.js';
import { CrashPoint, type StepReport } from './workerProtocol.js';

type Next = (args: { input: unknown }) => Promise<{ output?: unknown }>;
/** The part of an SDK v3 middleware stack this module uses. */
interface Stack {
  add(
    middleware: (next: Next, context: { commandName?: string }) => Next,
    options: { step: 'initialize' | 'finalizeRequest'; name: string; priority: 'high' | 'low' },
  ): void;
}
/** An SDK v3 client: its middleware stack. */
type Client = { readonly middlewareStack: object };
const stackOf = (client: Client) => client.middlewareStack as unknown as Stack;

/** What a step watch needs from its worker. */
export interface StepWatchWiring {
  /** The consumer's name in the inbox: with an event id, the entry's key. */
  readonly consumer: string;
  readonly crashSwitch: CrashSwitch;
  readonly random: () => number;
  /** Writes a report synchronously, before anything else happens. */
  readonly report: (report: StepReport) => void;
  /** Longest extra latency of a downstream call: heartbeats then renew the lease meanwhile. */
  readonly slowDownstreamMillis: number;
}

type WriteKind = 'claim' | 'journal' | 'heartbeat' | 'release';
type Values = Record<string, unknown>;
/** A frozen worker's resume: its lease's epoch, and its writes from then on. */
type Stale = {
  pk: string;
  epoch: number;
  refused: number;
  applied: number;
  /** The supervisor's verdict, once its `resumed` message arrived. */
  verdict: Promise<boolean>;
  settle: (takenOver: boolean) => void;
};

const MARSHALLED = new Set(['S', 'N', 'M', 'L', 'BOOL', 'NULL', 'SS', 'NS', 'B', 'BS']);
// How long a worker that asked to be frozen blocks: the supervisor's SIGSTOP lands within it.
const FREEZE_BLOCK_MILLIS = 1_500;
// The longest wait for the supervisor's verdict after a freeze (it polls for up to 20 s).
const VERDICT_WAIT_MILLIS = 30_000;

/**
 * The notifier worker's view of its steps: it reports each claim's epoch, each effect before
 * it goes out and each journal write and commit to the supervisor (synchronously, so a kill
 * loses no intent), slows the downstream calls so heartbeats run, and stops the worker at the
 * points inside steps — after an effect, after a journal write, around a heartbeat — or freezes
 * it holding its lease until another worker takes the entry over (point 10), then tallies
 * whether its later writes were refused.
 *
 * @example
 * ```ts
 * const watch = new StepWatch(wiring);
 * watch.watchEntries(dynamodb); watch.watchEffect(ses, 'email', eventIdOfEmail);
 * ```
 */
export class StepWatch {
  readonly #wiring: StepWatchWiring;
  readonly #epochs = new Map<string, number>();
  #stale: Stale | undefined;

  constructor(wiring: StepWatchWiring) {
    this.#wiring = wiring;
  }

  /** The supervisor's verdict after a freeze: did another worker claim the entry meanwhile? */
  resumed(pk: string, takenOver: boolean): void {
    if (this.#stale?.pk !== pk) return;
    this.#stale.settle(takenOver);
    // Not taken over: an ordinary, slow attempt; the switch tries again on a later one.
    if (!takenOver) this.#stale = undefined;
  }

  /**
   * The batch settled: a worker whose entry was taken over dies now, with its tally — after the
   * supervisor's verdict, which may reach it after the frozen record's batch settled.
   */
  async batchSettled(): Promise<void> {
    const stale = this.#stale;
    if (stale === undefined) return;
    const takenOver = await Promise.race([stale.verdict, sleep(VERDICT_WAIT_MILLIS, false)]);
    if (!takenOver || this.#stale !== stale) return;
    const { refused, applied } = stale;
    await this.#wiring.crashSwitch.crashAt(
      CrashPoint.LeaseTakeover,
      `${stale.pk}: frozen holding lease epoch ${stale.epoch} until another worker claimed it; resumed, ${refused} writes refused, ${applied} applied`,
      { staleWrites: { refused, applied } },
    );
  }

  /** Watches the inbox entry's updates and lease-holding commits of a DynamoDB client. */
  watchEntries(client: Client): void {
    stackOf(client).add(
      (next, context) => async (args) => {
        if (context.commandName === 'UpdateItemCommand') return this.#update(next, args);
        if (context.commandName === 'TransactWriteItemsCommand') return this.#commit(next, args);
        return next(args);
      },
      { step: 'initialize', name: 'chaosStepWatch', priority: 'high' },
    );
  }

  /**
   * Watches a downstream client whose calls are a step's effect for the event `eventIdOf`
   * names: each HTTP attempt is reported (the SDK's own retries included: each may reach the
   * downstream), the crash points and the freeze come once the call returned to the step.
   */
  watchEffect(client: Client, step: string, eventIdOf: (input: unknown) => string | undefined) {
    const pkOf = (input: unknown) => {
      const eventId = eventIdOf(input);
      return eventId === undefined ? undefined : inboxPk(this.#wiring.consumer, eventId);
    };
    stackOf(client).add(
      (next) => async (args) => {
        const pk = pkOf(args.input);
        if (pk !== undefined)
          this.#wiring.report({ type: 'effect', pk, step, epoch: this.#epochs.get(pk) });
        return next(args);
      },
      { step: 'finalizeRequest', name: `chaosStepEffectAttempt-${step}`, priority: 'low' },
    );
    stackOf(client).add(
      (next) => async (args) => {
        const pk = pkOf(args.input);
        if (pk === undefined) return next(args);
        await sleep(Math.floor(this.#wiring.random() * this.#wiring.slowDownstreamMillis));
        const result = await next(args);
        await this.#wiring.crashSwitch.reach(
          CrashPoint.AfterEffect,
          `${pk}: ${step} done, its journal write not sent`,
        );
        this.#freezeIfPlanned(pk, this.#epochs.get(pk), `after its ${step}`);
        return result;
      },
      { step: 'initialize', name: `chaosStepEffect-${step}`, priority: 'high' },
    );
  }

  async #update(next: Next, args: { input: unknown }) {
    const input = args.input as {
      Key?: Values;
      ExpressionAttributeNames?: Record<string, string>;
      ExpressionAttributeValues?: Values;
    };
    const pk = String(plain(input.Key?.pk));
    const values = Object.fromEntries(
      Object.entries(input.ExpressionAttributeValues ?? {}).map(([name, v]) => [name, plain(v)]),
    );
    const kind = writeKind(values, input.ExpressionAttributeNames ?? {});
    if (kind === undefined) {
      this.#wiring.report({ type: 'unknownEntryWrite', detail: Object.keys(values).join(' ') });
      return next(args);
    }
    const epoch = Number(values[':epoch']);
    const step = input.ExpressionAttributeNames?.['#step'] ?? '';
    const written = (values[':step'] ?? {}) as { result?: unknown; at?: unknown };
    const record = { result: String(written.result), at: String(written.at) };
    if (kind === 'journal') this.#wiring.report({ type: 'journalWrite', pk, step, epoch, record });
    const heartbeatBefore = kind === 'heartbeat' && this.#wiring.random() < 0.5;
    if (heartbeatBefore)
      await this.#wiring.crashSwitch.reach(
        CrashPoint.DuringHeartbeat,
        `${pk}: heartbeat of epoch ${epoch} about to go out`,
      );
    if (kind === 'claim') return this.#claim(pk, String(values[':owner']), () => next(args));
    const result = await this.#tally(pk, epoch, () => next(args));
    if (kind === 'journal')
      this.#wiring.report({ type: 'journaled', pk, step, epoch, at: record.at });
    if (kind === 'journal')
      await this.#wiring.crashSwitch.reach(
        CrashPoint.AfterJournal,
        `${pk}: ${step} journaled by epoch ${epoch}`,
      );
    if (kind === 'heartbeat' && !heartbeatBefore)
      await this.#wiring.crashSwitch.reach(
        CrashPoint.DuringHeartbeat,
        `${pk}: heartbeat of epoch ${epoch} applied, its answer not yet used`,
      );
    return result;
  }

  /** A commit holding a lease: its entry is an Update, fenced on the owner and the epoch. */
  async #commit(next: Next, args: { input: unknown }) {
    const items = (
      args.input as {
        TransactItems?: Array<{ Update?: { Key?: Values; ExpressionAttributeValues?: Values } }>;
      }
    ).TransactItems;
    const update = items?.[0]?.Update;
    if (update === undefined) return next(args);
    const pk = String(plain(update.Key?.pk));
    const epoch = Number(plain(update.ExpressionAttributeValues?.[':epoch']));
    this.#freezeIfPlanned(pk, epoch, 'before its commit');
    try {
      const result = await this.#tally(pk, epoch, () => next(args));
      this.#wiring.report({ type: 'commit', pk, epoch, outcome: 'committed' });
      return result;
    } catch (error) {
      const outcome = refusedByCondition(error) ? 'refused' : 'failed';
      this.#wiring.report({ type: 'commit', pk, epoch, outcome });
      throw error;
    }
  }

  /**
   * A claim's epoch: from its answer, or — a retry whose first answer was lost — from the
   * refusal that shows this very owner's lease (the library takes that as claimed).
   */
  async #claim(pk: string, owner: string, send: () => Promise<{ output?: unknown }>) {
    try {
      const result = await send();
      this.#claimed(pk, (result.output as { Attributes?: Values } | undefined)?.Attributes);
      return result;
    } catch (error) {
      const item = (error as { Item?: Values }).Item;
      if (item && plain(item.leaseOwner) === owner) this.#claimed(pk, item);
      throw error;
    }
  }

  #claimed(pk: string, attributes: Values = {}): void {
    const epoch = Number(plain(attributes.leaseEpoch));
    this.#epochs.set(pk, epoch);
    this.#wiring.report({ type: 'claimed', pk, epoch });
  }

  /**
   * Counts a frozen worker's writes of its stale epoch, once resumed: refused by the fence, or
   * let through by it — applied, or a commit the fence passed and another item's condition
   * cancelled (the business write's own condition is not what must stop a stale commit).
   */
  async #tally<T>(pk: string, epoch: number | undefined, send: () => Promise<T>): Promise<T> {
    const stale = this.#stale?.pk === pk && this.#stale.epoch === epoch ? this.#stale : undefined;
    try {
      const result = await send();
      if (stale) stale.applied++;
      return result;
    } catch (error) {
      if (stale && refusedByCondition(error)) stale.refused++;
      else if (stale && fencePassed(error)) stale.applied++;
      throw error;
    }
  }

  /**
   * At point 10, once: asks the supervisor to stop this process (SIGSTOP) and blocks until it
   * has, holding `pk`'s lease while it lapses and another worker may claim the entry.
   */
  #freezeIfPlanned(pk: string, epoch: number | undefined, where: string): void {
    if (
      epoch === undefined ||
      this.#stale ||
      !this.#wiring.crashSwitch.armedFor(CrashPoint.LeaseTakeover)
    )
      return;
    // Half the freezes after an effect (the journal write comes after), half before a commit.
    if ((where === 'before its commit') !== this.#wiring.random() < 0.5) return;
    let settle: (takenOver: boolean) => void = () => {};
    const verdict = new Promise<boolean>((resolve) => {
      settle = resolve;
    });
    this.#stale = { pk, epoch, refused: 0, applied: 0, verdict, settle };
    this.#wiring.report({ type: 'freeze', pk, epoch });
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, FREEZE_BLOCK_MILLIS);
  }
}

/** Which entry write an update is, by the values it carries (see src/aws/entryWrites.ts). */
function writeKind(values: Values, names: Record<string, string>): WriteKind | undefined {
  if (':one' in values && ':owner' in values) return 'claim';
  if (!(':epoch' in values)) return undefined;
  if ('#step' in names) return 'journal';
  if (':lastError' in values) return 'release';
  if (':leaseUntil' in values) return 'heartbeat';
  return undefined;
}

/** A value as the document client gives it, whether the middleware saw it marshalled or not. */
function plain(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && MARSHALLED.has(keys[0] ?? ''))
    return unmarshall({ value } as unknown as Parameters<typeof unmarshall>[0]).value;
  return value;
}

/** A transaction cancelled though its first item, the inbox entry, met its condition. */
function fencePassed(error: unknown): boolean {
  const {
    name,
    CancellationReasons = [],
    $metadata,
  } = error as {
    name?: string;
    CancellationReasons?: Array<{ Code?: string }>;
    $metadata?: { requestId?: string };
  };
  // Only a business item's condition, not a conflict or throttling (injected or real), says
  // that the entry's condition was evaluated and held.
  return (
    name === 'TransactionCanceledException' &&
    $metadata?.requestId !== 'injected' &&
    CancellationReasons[0]?.Code === 'None' &&
    CancellationReasons.slice(1).some((reason) => reason.Code === 'ConditionalCheckFailed')
  );
}

/** Refused by a condition: the fence (or, for a commit, the entry's condition) said no. */
function refusedByCondition(error: unknown): boolean {
  const { name, CancellationReasons } = error as {
    name?: string;
    CancellationReasons?: Array<{ Code?: string }>;
  };
  return (
    name === 'ConditionalCheckFailedException' ||
    (name === 'TransactionCanceledException' &&
      CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed')
  );
}
