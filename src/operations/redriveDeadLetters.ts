import type { SQSRecord } from 'aws-lambda';
import { errorTypeName } from '../errors/errorText.js';
import type { InboxRuntime } from '../runtime/InboxRuntime.js';
import {
  type DeadLetterVerdict,
  describeDeadLetter,
  type JudgeContext,
  judgeDeadLetter,
} from './judgeDeadLetter.js';
import { RedriveDecision } from './RedriveDecision.js';
import type { RedriveQueue } from './RedriveQueue.js';
import { type RedriveSelection, selected } from './RedriveSelection.js';
import {
  countError,
  countOutcome,
  type DeadLetterOutcome,
  newRedriveState,
  type RedriveState,
  type RedriveSummary,
  summarise,
} from './RedriveState.js';
import { LOCK_LEASE_MILLIS, type RunLease, type RunLock, takeLease } from './RunLease.js';
import { receiveAll } from './receiveAll.js';
import { type ConsumerReading, keyRecovery } from './recoverKey.js';
import { redrivenCopy } from './redrivenCopy.js';

export type { DeadLetterOutcome, RedriveSummary } from './RedriveState.js';

/**
 * One inbox-aware redrive run: the DLQ, how its consumer reads messages, and the operator's
 * choices. Without `apply` it decides and reports, and sends and deletes nothing.
 *
 * @example
 * ```ts
 * const summary = await redriveDeadLetters({ queue, reading, ttlSeconds, operationId, apply: false });
 * ```
 */
export interface RedriveRun {
  readonly queue: RedriveQueue;
  readonly reading: ConsumerReading;
  readonly ttlSeconds: number;
  /** Recorded on every copy sent back (`inbox.redriveOp`) and in the summary. */
  readonly operationId: string;
  readonly apply: boolean;
  /** Where a message with no recorded source goes. */
  readonly to?: string;
  readonly selection?: RedriveSelection;
  /** Sends and deletes per second; default 10. */
  readonly ratePerSecond?: number;
  /** The run stops after this many failed sends or deletes; default 10. */
  readonly maxErrors?: number;
  readonly includePermanent?: boolean;
  readonly acceptStale?: boolean;
  /** Names of the handler's own permanent errors, besides the library's. */
  readonly permanentErrors?: readonly string[];
  readonly showKey?: boolean;
  readonly runtime: Pick<InboxRuntime, 'now' | 'sleep'>;
  /**
   * One run per DLQ: taken at the start ({@link RedriveLockedError} when another run holds it),
   * renewed every third of `lockLeaseMillis` while the run works, released at the end. A run
   * that finds it another's stops (`stoppedBy: 'lock-lost'`) and acts on no further message.
   */
  readonly lock?: RunLock;
  /** How long the lock holds unrenewed; default {@link LOCK_LEASE_MILLIS} (two minutes). */
  readonly lockLeaseMillis?: number;
  /** Aborted: the run stops after the message in hand (`stoppedBy: 'signal'`), and releases what it holds. */
  readonly signal?: AbortSignal;
  /** Told each message's outcome as it is decided and acted on. */
  readonly onMessage?: (outcome: DeadLetterOutcome) => void;
}

/**
 * The inbox-aware redrive of a consumer's DLQ. Each message is keyed the way its consumer keys
 * it, its entry read consistently, and decided by {@link decideRedrive}: an applied one is
 * deleted and never sent; one proven not committed is sent back to its source queue, then
 * deleted; any other is kept, visible again when the run ends. A FIFO group is handled in DLQ
 * order, and a kept message holds the rest of its group back. A crash between a send and its
 * delete is safe to run again: the copy is then found committed, or keyed to the same entry,
 * or (FIFO) dropped as a duplicate within five minutes.
 *
 * @example
 * ```ts
 * const summary = await redriveDeadLetters({ queue, reading, ttlSeconds: 86_400, operationId: randomUUID(), apply: true, runtime: systemRuntime });
 * ```
 */
export async function redriveDeadLetters(run: RedriveRun): Promise<RedriveSummary> {
  const leaseMillis = run.lockLeaseMillis ?? LOCK_LEASE_MILLIS;
  const lease = await takeLease(run.lock, leaseMillis, run.runtime.now, run.queue.arn);
  try {
    return await redriveHolding(run, lease);
  } finally {
    await lease.release();
  }
}

async function redriveHolding(run: RedriveRun, lease: RunLease): Promise<RedriveSummary> {
  const state = newRedriveState(run.runtime.now(), lease);
  // A message dead-lettered after the run began is left for the next run: a copy this run sent
  // back that failed again would otherwise come round to it for as long as it runs.
  const selection = {
    ...run.selection,
    untilMillis: Math.min(run.selection?.untilMillis ?? Infinity, run.runtime.now()),
  };
  const reader = receiveAll(run.queue, () => stopping(run, state), { now: run.runtime.now });
  const context = judgeContext(run);
  try {
    for await (const record of reader.records()) {
      if (!(await holds(state))) break;
      const outcome = await handle(
        record,
        { ...context, nowMillis: run.runtime.now() },
        { ...run, selection },
        state,
      );
      if (outcome.action === 'deleted' || outcome.action === 'sent') reader.forget(record);
      countOutcome(state, outcome);
      run.onMessage?.(outcome);
    }
  } finally {
    await reader.releaseAll();
  }
  return summarise(run, state);
}

/** Whether the run stops before the next message; an aborted `signal` is recorded as its reason. */
function stopping(run: RedriveRun, state: RedriveState): boolean {
  if (state.stoppedBy === undefined && run.signal?.aborted === true) state.stoppedBy = 'signal';
  return state.stoppedBy !== undefined;
}

/** Whether the run still holds its lock (renewed when due); once not, it stops. */
async function holds(state: RedriveState): Promise<boolean> {
  if (await state.lease.hold()) return true;
  state.stoppedBy = 'lock-lost';
  return false;
}

function judgeContext(run: RedriveRun): Omit<JudgeContext, 'nowMillis'> {
  const retentions = new Map<string, Promise<number | undefined>>();
  const retentionSecondsOf = (arn: string) => {
    const known = retentions.get(arn) ?? run.queue.retentionSecondsOf(arn).catch(() => undefined);
    retentions.set(arn, known);
    return known;
  };
  return {
    reading: run.reading,
    recover: keyRecovery(run.reading),
    ttlSeconds: run.ttlSeconds,
    fifo: run.queue.fifo,
    ...(run.to === undefined ? {} : { to: run.to }),
    retentionSecondsOf,
    includePermanent: run.includePermanent ?? false,
    acceptStale: run.acceptStale ?? false,
    permanentErrors: run.permanentErrors ?? [],
    showKey: run.showKey ?? false,
  };
}

/** Decides and acts on one message; one left in the DLQ, for any reason, holds its group back. */
async function handle(
  record: SQSRecord,
  context: JudgeContext,
  run: RedriveRun,
  state: RedriveState,
): Promise<DeadLetterOutcome> {
  const outcome = await decideAndAct(record, context, run, state);
  const groupId = record.attributes.MessageGroupId;
  if (outcome.action === 'kept' && groupId !== undefined) state.keptGroups.add(groupId);
  return outcome;
}

async function decideAndAct(
  record: SQSRecord,
  context: JudgeContext,
  run: RedriveRun,
  state: RedriveState,
): Promise<DeadLetterOutcome> {
  if (!selected(record, run.selection)) {
    return kept({ ...describeDeadLetter(record, run), decision: RedriveDecision.NotSelected });
  }
  state.selectedCount++;
  if (run.selection?.limit !== undefined && state.selectedCount >= run.selection.limit) {
    state.stoppedBy = 'limit';
  }
  const groupId = record.attributes.MessageGroupId;
  if (groupId !== undefined && state.keptGroups.has(groupId)) {
    const why = 'an earlier message of its group is kept';
    return kept({
      ...describeDeadLetter(record, run),
      decision: RedriveDecision.BehindKept,
      why,
    });
  }
  let verdict: DeadLetterVerdict;
  try {
    verdict = await judgeDeadLetter(record, context);
  } catch (error) {
    // The entry could not be read (throttled, refused, not an entry): this message stays.
    countError(state, run.maxErrors);
    verdict = {
      ...describeDeadLetter(record, run),
      decision: RedriveDecision.Error,
      why: `reading its entry failed: ${errorTypeName(error)}`,
    };
  }
  return act(record, verdict, run, state);
}

async function act(
  record: SQSRecord,
  verdict: DeadLetterVerdict,
  run: RedriveRun,
  state: RedriveState,
): Promise<DeadLetterOutcome> {
  const { decision, sourceQueueArn } = verdict;
  if (decision !== RedriveDecision.AlreadyApplied && decision !== RedriveDecision.Retry) {
    return kept(verdict);
  }
  const sending = decision === RedriveDecision.Retry;
  // `no-source` is decided before `retry`: a retry without a source is a bug, never a delete.
  if (sending && sourceQueueArn === undefined) {
    throw new Error(`the redrive decided retry for ${verdict.dlqMessageId} without a source queue`);
  }
  if (!run.apply) return { ...verdict, action: sending ? 'would-send' : 'would-delete' };
  let newMessageId: string | undefined;
  try {
    await pace(run, state);
    // Checked after the wait, right before acting: a run that lost its lock sends and deletes nothing more.
    if (!(await holds(state))) return lockLost(verdict, state);
    if (sending && sourceQueueArn !== undefined) {
      newMessageId = await run.queue.sendBack(
        sourceQueueArn,
        redrivenCopy(record, run.operationId),
      );
    }
    await run.queue.remove(record);
    return {
      ...verdict,
      action: sending ? 'sent' : 'deleted',
      ...(newMessageId ? { newMessageId } : {}),
    };
  } catch (error) {
    countError(state, run.maxErrors);
    const why = `${failedStep(sending, newMessageId)} failed: ${errorTypeName(error)}`;
    return kept({ ...verdict, decision: RedriveDecision.Error, why });
  }
}

/** The step of a send or delete that failed, for the kept message's `why`. */
function failedStep(sending: boolean, newMessageId: string | undefined): string {
  if (newMessageId !== undefined) return `deleting it after it was sent as ${newMessageId}`;
  return sending ? 'sending it back' : 'deleting it';
}

/**
 * Spaces sends and deletes `1 / ratePerSecond` apart. A wait longer than a third of the lock's
 * lease is slept in slices, the lock renewed between them: a slow rate does not let it lapse.
 */
async function pace(run: RedriveRun, state: RedriveState): Promise<void> {
  const intervalMillis = 1000 / (run.ratePerSecond ?? 10);
  const sliceMillis = (run.lockLeaseMillis ?? LOCK_LEASE_MILLIS) / 3;
  const waitMillis = state.nextActionMillis - run.runtime.now();
  for (let leftMillis = waitMillis; leftMillis > 0; leftMillis -= sliceMillis) {
    await run.runtime.sleep(Math.min(leftMillis, sliceMillis));
    if (!(await holds(state))) return;
  }
  state.nextActionMillis = Math.max(state.nextActionMillis, run.runtime.now()) + intervalMillis;
}

/** The message in hand when the run found its lock lost: kept, untouched. */
function lockLost(verdict: DeadLetterVerdict, state: RedriveState): DeadLetterOutcome {
  return kept({ ...verdict, why: `not acted on: the run ${state.lease.lost}` });
}

function kept(verdict: DeadLetterVerdict): DeadLetterOutcome {
  return { ...verdict, action: 'kept' };
}
