import type { Context } from 'aws-lambda';
import { InboxMetric, LEASE_LIMITS, STEP_LIMITS, TransientReason } from '../constants/values.js';
import type { ClaimResult, JournaledStep, LeaseToken } from '../core/InboxStore.js';
import {
  bindsOtherPayload,
  type InboxEntry,
  inboxPk,
  isCommitted,
  leaseHeld,
  toEpochSeconds,
} from '../core/inboxEntry.js';
import { loggedKey } from '../core/loggedKey.js';
import { type RecordObservation, type StepMarks, UNOBSERVED } from '../core/RecordObservation.js';
import type { ResolvedOptions } from '../core/resolveOptions.js';
import { type ConflictRetry, retryTransient } from '../core/retryTransient.js';
import type { StepContext, StepFunction } from '../core/StepFunction.js';
import { describe, recordedErrorName } from '../errors/errorText.js';
import {
  InboxError,
  LeaseLostError,
  PayloadMismatchError,
  StepNameError,
  StepResultError,
  TransactionClosedError,
  TransientStoreError,
} from '../errors.js';
import { decodeStepResult, encodeStepResult } from './encodeStepResult.js';
import { LeaseHeartbeat } from './LeaseHeartbeat.js';
import { stepIdempotencyKey } from './stepIdempotencyKey.js';

/** Without a Lambda context nothing bounds the handler: the lease is this long, renewed. */
const DEFAULT_LEASE_MILLIS = 60_000;

/**
 * Thrown by a step whose claim found the message already committed: the handler stops, and the
 * record is acknowledged as a duplicate (or refused for another payload) after it.
 */
class AlreadyCommittedError extends InboxError {
  static override readonly errorName: string = 'AlreadyCommittedError';
  constructor() {
    super('The message was committed by another copy; its steps do not run again.');
  }
}

/** The message a record's steps belong to. */
export interface StepTarget {
  readonly consumer: string;
  readonly key: string;
  readonly messageId: string;
  readonly payloadHash: string;
  readonly bodyHash: string;
}

/** One run of the handler: the step function it is given, and the names it used. */
export interface StepRun {
  readonly step: StepFunction;
  /** Called when the handler settled: a later step is refused before it runs anything. */
  close(): void;
}

/**
 * The steps of one record: the lease claimed at the first step, the journal it resumes, the
 * heartbeat, and the fence every later write carries. It outlives a handler run: when a
 * transient commit failure makes the record run its handler again, the lease and the journal
 * stay, so the steps it finished are replayed, not run again.
 *
 * @example
 * ```ts
 * const steps = new MessageSteps(target, options, context, signal);
 * const run = steps.startRun();
 * try { await handler({ ...message, step: run.step }, tx); } finally { run.close(); }
 * const lease = await steps.beforeCommit();
 * ```
 */
export class MessageSteps {
  readonly #target: StepTarget;
  readonly #options: ResolvedOptions;
  readonly #context: Context | undefined;
  readonly #signal: AbortSignal;
  readonly #pk: string;
  readonly #journal = new Map<string, JournaledStep>();
  /**
   * Results in hand whose journal writes did not land (their tries failed): journaled before
   * the step could run again, or with the release.
   */
  readonly #unjournaled = new Map<string, JournaledStep>();
  readonly #lossSignal = new AbortController();
  readonly #inFlight = new Set<Promise<unknown>>();
  #claiming: Promise<void> | undefined;
  #owner: string | undefined;
  #pendingBytes = 0;
  #lease: LeaseToken | undefined;
  #attempts = 0;
  #lost: LeaseLostError | undefined;
  #committed: InboxEntry | undefined;
  #heartbeat: LeaseHeartbeat | undefined;
  #lengthMillis = DEFAULT_LEASE_MILLIS;
  #endMillis = Number.POSITIVE_INFINITY;
  readonly #conflicts: ConflictRetry | undefined;
  readonly #observation: RecordObservation;

  constructor(
    target: StepTarget,
    options: ResolvedOptions,
    context: Context | undefined,
    signal: AbortSignal,
    conflicts?: ConflictRetry,
    observation: RecordObservation = UNOBSERVED,
  ) {
    this.#conflicts = conflicts;
    this.#observation = observation;
    this.#target = target;
    this.#options = options;
    this.#context = context;
    this.#signal = signal;
    this.#pk = inboxPk(target.consumer, target.key);
  }

  /** The lease the record holds, once a step claimed it. */
  get lease(): LeaseToken | undefined {
    return this.#lease;
  }

  /**
   * Whether a step of this record asked for the lease: its failures are then the lease's to
   * tell (released with the journal, or left to lapse), never a step-less failure record.
   */
  get leaseSought(): boolean {
    return this.#owner !== undefined;
  }

  /** The committed entry a claim found, when the message turned out to be a duplicate. */
  get committedEntry(): InboxEntry | undefined {
    return this.#committed;
  }

  /** A run of the handler, with the step function it is given. */
  startRun(): StepRun {
    const names = new Set<string>();
    let closed = false;
    if (this.#lease !== undefined && this.#lost === undefined) this.#heartbeat?.start();
    const step = <T>(name: string, run: (context: StepContext) => Promise<T> | T) => {
      try {
        checkStepName(name, names);
        if (closed) throw new TransactionClosedError(this.#target.messageId, `step ${name}`);
      } catch (error) {
        return Promise.reject(error);
      }
      const running = this.#observation.step(name, (marks) => this.#step(name, run, marks));
      this.#inFlight.add(running);
      const settled = () => this.#inFlight.delete(running);
      running.then(settled, settled);
      return running as Promise<T>;
    };
    return {
      step,
      close: () => {
        closed = true;
      },
    };
  }

  /**
   * Before the commit: stops the heartbeat (waiting for a beat in flight) and answers the
   * lease to fence the commit with. Throws the `LeaseLostError` if the lease was lost.
   */
  async beforeCommit(): Promise<LeaseToken | undefined> {
    // A step the handler did not await journals before the commit removes the owner.
    await this.settle();
    await this.#heartbeat?.pause();
    if (this.#lost !== undefined) throw this.#lost;
    return this.#lease;
  }

  /**
   * After a failure: releases the lease, keeping the journal, so the next attempt claims at
   * once and resumes. A refused or failed release is logged only: the lease then lapses.
   */
  async release(error: unknown): Promise<void> {
    if (error instanceof LeaseLostError) this.#lose(error);
    // A step still running (its sibling failed under Promise.all) is stopped and awaited, so no
    // effect of this attempt runs on after the next attempt could claim the entry.
    this.#lossSignal.abort(error);
    await this.settle();
    await this.#heartbeat?.pause();
    const lease = this.#lease;
    if (lease === undefined || this.#lost !== undefined) return;
    this.#lease = undefined;
    const at = new Date(this.#options.runtime.now()).toISOString();
    // Results in hand go with the release: the next attempt replays them, not their effects.
    const journal = Object.fromEntries(this.#unjournaled);
    try {
      await this.#withRetries(() =>
        this.#options.store.release({
          pk: this.#pk,
          lease,
          lastError: { name: recordedErrorName(error), at },
          ...(this.#unjournaled.size > 0 ? { journal } : {}),
        }),
      );
    } catch (releaseError) {
      this.#log(
        this.#unjournaled.size > 0 ? 'warn' : 'debug',
        'lease not released; it lapses at its end',
        {
          releaseError,
          unjournaledSteps: [...this.#unjournaled.keys()],
        },
      );
    }
  }

  /**
   * Waits for the steps in flight to settle, whatever they end with: those a previous run of the
   * handler left running (a sibling of a step that failed under `Promise.all`), which the next
   * run then replays from the journal or the results in hand instead of running alongside.
   */
  async settle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Stops the heartbeat for good (the record settled). */
  stop(): void {
    this.#heartbeat?.stop();
  }

  async #step(
    name: string,
    run: (context: StepContext) => unknown,
    marks: StepMarks,
  ): Promise<unknown> {
    this.#throwIfStopped();
    this.#claiming ??= this.#claim().catch((error: unknown) => {
      // A conflict or an exhausted retry: the handler's next run claims again.
      if (error instanceof TransientStoreError) this.#claiming = undefined;
      throw error;
    });
    await this.#claiming;
    this.#throwIfStopped();
    const journaled = this.#journal.get(name);
    if (journaled !== undefined) {
      marks.replayed();
      this.#options.metrics?.addMetric(InboxMetric.StepsReplayed, 'Count', 1);
      this.#log('debug', 'step replayed from the journal', { step: name });
      return decodeStepResult(journaled.result);
    }
    const inHand = this.#unjournaled.get(name);
    if (inHand !== undefined) {
      // Its effect ran in this invocation and its journal write did not land (or its answers
      // were lost): the result is journaled now, under the same lease, never run again.
      await this.#writeJournal(name, inHand);
      marks.replayed();
      this.#options.metrics?.addMetric(InboxMetric.StepsReplayed, 'Count', 1);
      this.#log('debug', 'step result in hand journaled and replayed', { step: name });
      return decodeStepResult(inHand.result);
    }
    marks.started();
    const result = await run(this.#stepContext(name));
    const encoded = encodeStepResult(name, result);
    const bytes = this.#checkJournalSize(name, encoded);
    const step = {
      ...(encoded === undefined ? {} : { result: encoded }),
      at: new Date(this.#options.runtime.now()).toISOString(),
    };
    this.#pendingBytes += bytes;
    try {
      await this.#writeJournal(name, step);
    } finally {
      this.#pendingBytes -= bytes;
    }
    this.#options.metrics?.addMetric(InboxMetric.StepsRun, 'Count', 1);
    return decodeStepResult(encoded);
  }

  #stepContext(stepName: string): StepContext {
    const { consumer, key } = this.#target;
    return {
      stepName,
      idempotencyKey: stepIdempotencyKey(consumer, key, stepName),
      attempt: this.#attempts,
      signal: AbortSignal.any([this.#signal, this.#lossSignal.signal]),
    };
  }

  async #claim(): Promise<void> {
    this.#startLeaseClock();
    const { claim, nowMillis, leaseEndMillis } = await this.#sendClaim();
    if (!claim.claimed) throw this.#refused(claim.existing, nowMillis);
    this.#lease = claim.lease;
    this.#attempts = claim.attempts;
    this.#observation.noteAttempts(claim.attempts);
    if (claim.takenOver === true) {
      this.#options.metrics?.addMetric(InboxMetric.LeaseTakeovers, 'Count', 1);
      this.#log('warn', 'lease taken over: the attempt that held it stopped before its end', {
        attempt: claim.attempts,
      });
    }
    for (const [name, step] of Object.entries(claim.journal)) this.#journal.set(name, step);
    await this.#holdClaimedLease(claim.leaseUntilMillis, leaseEndMillis);
  }

  /** The invocation's end and the lease's length, from the Lambda context and the options. */
  #startLeaseClock(): void {
    const remainingMillis = this.#context?.getRemainingTimeInMillis();
    if (remainingMillis !== undefined)
      this.#endMillis = this.#options.runtime.now() + remainingMillis;
    this.#lengthMillis = this.#options.leaseMillis ?? remainingMillis ?? DEFAULT_LEASE_MILLIS;
  }

  /**
   * Claims the entry's lease, retrying transient failures. Each try measures the lease from its
   * own send, so a retried one never writes a stale lease; one token per record, so a retried
   * claim whose first answer was lost finds its own lease.
   */
  async #sendClaim(): Promise<{
    readonly claim: ClaimResult;
    readonly nowMillis: number;
    readonly leaseEndMillis: number;
  }> {
    const { runtime, store } = this.#options;
    const { consumer, key, messageId, payloadHash, bodyHash } = this.#target;
    this.#owner ??= ownerToken(runtime.random);
    const owner = this.#owner;
    let nowMillis = runtime.now();
    let leaseEndMillis = nowMillis;
    const claim = await this.#withRetries(() => {
      nowMillis = runtime.now();
      leaseEndMillis = this.#leaseEnd(nowMillis);
      const leaseUntilMillis = leaseEndMillis + LEASE_LIMITS.clockSkewMillis;
      return store.claim({
        entry: {
          pk: this.#pk,
          consumer,
          key,
          messageId,
          payloadHash,
          expiresAt: this.#expiresAt(nowMillis, leaseUntilMillis),
        },
        payloadHashes: [payloadHash, bodyHash],
        owner,
        nowMillis,
        leaseUntilMillis,
      });
    });
    return { claim, nowMillis, leaseEndMillis };
  }

  /**
   * Keeps the claimed lease alive: a retried claim that found its own lease holds the one an
   * earlier try wrote, shorter, and renews it at once, before any step runs under it; a lease
   * ending before the invocation does gets a heartbeat.
   */
  async #holdClaimedLease(
    storedUntilMillis: number | undefined,
    leaseEndMillis: number,
  ): Promise<void> {
    const storedEndMillis =
      (storedUntilMillis ?? Number.POSITIVE_INFINITY) - LEASE_LIMITS.clockSkewMillis;
    this.#log('debug', 'lease claimed', {
      attempt: this.#attempts,
      journaledSteps: this.#journal.size,
      leaseEnd: new Date(Math.min(leaseEndMillis, storedEndMillis)).toISOString(),
    });
    if (storedEndMillis < leaseEndMillis) {
      if (!(await this.#beat())) return;
      this.#startHeartbeat();
      return;
    }
    if (leaseEndMillis < this.#endMillis) this.#startHeartbeat();
  }

  /** Why a claim was refused, as the error the step throws. */
  #refused(existing: InboxEntry, nowMillis: number): Error {
    const { key, payloadHash, bodyHash } = this.#target;
    if (isCommitted(existing, toEpochSeconds(nowMillis))) {
      this.#committed = existing;
      return new AlreadyCommittedError();
    }
    // A refused claim's entry is live (a claim takes an expired one), as the check requires.
    if (bindsOtherPayload(existing, { payloadHash, bodyHash }, nowMillis)) {
      return new PayloadMismatchError(key, payloadHash, existing);
    }
    const held = leaseHeld(existing, nowMillis);
    if (held !== undefined) {
      this.#options.metrics?.addMetric(InboxMetric.LeasesHeld, 'Count', 1);
      return held;
    }
    // Free when read, taken when claimed: someone else's claim won in between.
    return new TransientStoreError(TransientReason.TransactionConflict, undefined);
  }

  #startHeartbeat(): void {
    this.#heartbeat?.stop();
    const periodMillis = Math.max(1, Math.floor(this.#lengthMillis * LEASE_LIMITS.heartbeatShare));
    this.#heartbeat = new LeaseHeartbeat(this.#options.runtime, periodMillis, () => this.#beat());
    if (!this.#signal.aborted) this.#heartbeat.start();
  }

  /** One renewal; false once the lease is lost or reaches the invocation's end. */
  async #beat(): Promise<boolean> {
    const lease = this.#lease;
    // Past the batch's deadline the record was reported failed: its lease is left to lapse.
    if (lease === undefined || this.#lost !== undefined || this.#signal.aborted) return false;
    const nowMillis = this.#options.runtime.now();
    const leaseEndMillis = this.#leaseEnd(nowMillis);
    const leaseUntilMillis = leaseEndMillis + LEASE_LIMITS.clockSkewMillis;
    try {
      await this.#options.store.heartbeat({
        pk: this.#pk,
        lease,
        leaseUntilMillis,
        expiresAt: this.#expiresAt(nowMillis, leaseUntilMillis),
      });
    } catch (error) {
      if (error instanceof LeaseLostError) {
        this.#lose(error);
        return false;
      }
      this.#log('debug', 'heartbeat failed; the next one tries again', { error });
    }
    return leaseEndMillis < this.#endMillis;
  }

  async #writeJournal(name: string, step: JournaledStep): Promise<void> {
    const lease = this.#lease;
    try {
      if (lease === undefined) {
        throw new TransientStoreError(TransientReason.TransactionConflict, undefined);
      }
      // Setting the same value twice is harmless: a write whose answer was lost is retried.
      await this.#withRetries(() =>
        this.#options.store.journal({ pk: this.#pk, lease, stepName: name, step }),
      );
    } catch (error) {
      if (error instanceof LeaseLostError) this.#lose(error);
      // Kept in hand: a rerun of the handler journals it instead of running the effect again,
      // and a release carries it. (Counted once: while in flight, it is in `#pendingBytes`.)
      this.#unjournaled.set(name, step);
      throw error;
    }
    this.#unjournaled.delete(name);
    this.#journal.set(name, step);
  }

  #lose(error: LeaseLostError): void {
    if (this.#lost !== undefined) return;
    this.#lost = error;
    this.#heartbeat?.stop();
    this.#options.metrics?.addMetric(InboxMetric.LeasesLost, 'Count', 1);
    this.#log('warn', 'lease lost: this attempt stops and does not commit', {
      operation: error.operation,
    });
    this.#lossSignal.abort(error);
  }

  #throwIfStopped(): void {
    if (this.#lost !== undefined) throw this.#lost;
    this.#signal.throwIfAborted();
    // Released after a sibling step failed: no new effect starts.
    this.#lossSignal.signal.throwIfAborted();
  }

  /** The bytes this step adds to the journal, refused past the journal's limit. */
  #checkJournalSize(name: string, encoded: string | undefined): number {
    const own = Buffer.byteLength(name) + Buffer.byteLength(encoded ?? '');
    // Steps running at once count too: their writes are on their way.
    let bytes = own + this.#pendingBytes;
    for (const [journaledName, step] of [...this.#journal, ...this.#unjournaled]) {
      bytes += Buffer.byteLength(journaledName) + Buffer.byteLength(step.result ?? '');
    }
    if (bytes > STEP_LIMITS.journalBytes) {
      throw new StepResultError(
        name,
        `the message's journal would be ${bytes} bytes, over the ${STEP_LIMITS.journalBytes}-byte limit; return smaller results (ids, statuses)`,
      );
    }
    return own;
  }

  /**
   * Where the attempt's lease ends by its own clock: its length from now, never past the
   * invocation's end. The entry's `leaseUntil` adds the clock skew the library budgets for, so
   * that a host whose clock runs that much ahead still sees the lease hold for its whole length.
   */
  #leaseEnd(nowMillis: number): number {
    return Math.min(nowMillis + this.#lengthMillis, this.#endMillis);
  }

  /** The entry outlives its lease, and lives its TTL from the latest claim or renewal. */
  #expiresAt(nowMillis: number, leaseUntilMillis: number): number {
    const ttlEnd = toEpochSeconds(nowMillis) + this.#options.ttlSeconds;
    return Math.max(ttlEnd, Math.ceil(leaseUntilMillis / 1000));
  }

  #withRetries<T>(request: () => Promise<T>): Promise<T> {
    const { transactionAttempts, runtime } = this.#options;
    return retryTransient(request, {
      attempts: transactionAttempts,
      runtime,
      signal: this.#signal,
      conflicts: this.#conflicts,
    });
  }

  #log(level: 'debug' | 'warn', message: string, extra: Record<string, unknown>): void {
    this.#options.logger[level](message, {
      consumer: this.#target.consumer,
      ...loggedKey(this.#target.key, this.#options.logKeys),
      messageId: this.#target.messageId,
      ...extra,
    });
  }
}

/**
 * The step name checked: valid, and not used before in this run of the handler.
 */
function checkStepName(name: unknown, used: Set<string>): asserts name is string {
  if (typeof name !== 'string' || !STEP_LIMITS.namePattern.test(name)) {
    throw new StepNameError(String(name), 'invalid', describe(name));
  }
  if (used.has(name)) throw new StepNameError(name, 'repeated', name);
  used.add(name);
}

/** A fresh owner token: 128 bits from the runtime's randomness, in hex. */
function ownerToken(random: () => number): string {
  let token = '';
  for (let i = 0; i < 4; i++) {
    token += Math.floor(random() * 0x1_0000_0000)
      .toString(16)
      .padStart(8, '0');
  }
  return token;
}
