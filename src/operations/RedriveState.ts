import type { DeadLetterVerdict } from './judgeDeadLetter.js';
import type { RunLease } from './RunLease.js';

/**
 * A message's verdict and what the run did: `deleted` (already applied), `sent` (and
 * deleted), `kept`, or in a dry run `would-delete` / `would-send`.
 *
 * @example
 * ```ts
 * if (outcome.action === 'sent') console.log(outcome.newMessageId);
 * ```
 */
export type DeadLetterOutcome = DeadLetterVerdict & {
  readonly action: 'deleted' | 'sent' | 'kept' | 'would-delete' | 'would-send';
  readonly newMessageId?: string;
};

/**
 * The summary of a run: counts by decision and by action, and why it stopped early, if it did.
 *
 * @example
 * ```ts
 * process.exitCode = summary.kept > 0 ? 1 : 0;
 * ```
 */
export interface RedriveSummary {
  readonly operationId: string;
  readonly apply: boolean;
  readonly messages: number;
  readonly decisions: Readonly<Record<string, number>>;
  readonly sent: number;
  readonly deleted: number;
  readonly kept: number;
  readonly errors: number;
  readonly stoppedBy?: StopReason;
  /** Why the run lost its lock, when `stoppedBy` is `lock-lost`. */
  readonly lockLost?: string;
}

/**
 * Why a run stopped before the DLQ's end: `--max-errors`, `--limit`, its lock lost, or its
 * `signal` aborted (SIGINT, SIGTERM, its output closed).
 */
type StopReason = 'max-errors' | 'limit' | 'lock-lost' | 'signal';

/**
 * What a redrive run has done so far: its counts, the FIFO groups it keeps back, when it may
 * act next, its hold on the lock, and why it stops, once it does.
 *
 * @example
 * ```ts
 * const state = newRedriveState(runtime.now(), lease);
 * ```
 */
export interface RedriveState {
  messages: number;
  decisions: Record<string, number>;
  sent: number;
  deleted: number;
  kept: number;
  errors: number;
  selectedCount: number;
  keptGroups: Set<string>;
  nextActionMillis: number;
  lease: RunLease;
  stoppedBy?: StopReason;
}

/**
 * The state of a run that has done nothing yet: it may act at once.
 *
 * @example
 * ```ts
 * const state = newRedriveState(Date.now(), lease);
 * ```
 */
export function newRedriveState(nowMillis: number, lease: RunLease): RedriveState {
  return {
    messages: 0,
    decisions: {},
    sent: 0,
    deleted: 0,
    kept: 0,
    errors: 0,
    selectedCount: 0,
    keptGroups: new Set(),
    nextActionMillis: nowMillis,
    lease,
  };
}

/**
 * Counts a message's outcome: by its decision, and as sent, deleted or kept.
 *
 * @example
 * ```ts
 * countOutcome(state, outcome);
 * ```
 */
export function countOutcome(state: RedriveState, outcome: DeadLetterOutcome): void {
  state.messages++;
  state.decisions[outcome.decision] = (state.decisions[outcome.decision] ?? 0) + 1;
  if (outcome.action === 'sent') state.sent++;
  if (outcome.action === 'sent' || outcome.action === 'deleted') state.deleted++;
  if (outcome.action === 'kept') state.kept++;
}

/**
 * Counts a failed read, send or delete; at `maxErrors` (default 10) the run stops.
 *
 * @example
 * ```ts
 * countError(state, run.maxErrors);
 * ```
 */
export function countError(state: RedriveState, maxErrors = 10): void {
  state.errors++;
  if (state.errors >= maxErrors) state.stoppedBy = 'max-errors';
}

/**
 * The summary of a run from its state.
 *
 * @example
 * ```ts
 * return summarise({ operationId, apply: true }, state);
 * ```
 */
export function summarise(
  run: { readonly operationId: string; readonly apply: boolean },
  state: RedriveState,
): RedriveSummary {
  return {
    operationId: run.operationId,
    apply: run.apply,
    messages: state.messages,
    decisions: state.decisions,
    sent: state.sent,
    deleted: state.deleted,
    kept: state.kept,
    errors: state.errors,
    ...(state.stoppedBy ? { stoppedBy: state.stoppedBy } : {}),
    ...(state.lease.lost ? { lockLost: state.lease.lost } : {}),
  };
}
