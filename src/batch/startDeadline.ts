import type { Context } from 'aws-lambda';
import { RecordDeadlineError } from '../errors.js';
import { type InboxRuntime, TimerPurpose } from '../runtime/InboxRuntime.js';

const MAX_TIMER_MILLIS = 2 ** 31 - 1;

/**
 * When a batch must stop waiting for its records: the Lambda context's remaining time less a
 * margin for answering, but never less than half the remaining time.
 *
 * @example
 * ```ts
 * const deadline = startDeadline(context, 1_000, systemRuntime);
 * await Promise.race([work, deadline?.reached]);
 * deadline?.cancel();
 * ```
 */
export interface Deadline {
  /** Aborted with a {@link RecordDeadlineError} when the deadline passes. */
  readonly signal: AbortSignal;
  /** Resolves when the deadline passes (never, once cancelled). */
  readonly reached: Promise<void>;
  /** Stops the timer: the batch settled in time. */
  cancel(): void;
}

/**
 * Starts the deadline of a batch, or returns undefined when there is no Lambda context to
 * take the remaining time from (a direct call in a test or a script).
 *
 * @example
 * ```ts
 * const deadline = startDeadline(context, options.deadlineMarginMillis, options.runtime);
 * ```
 */
export function startDeadline(
  context: Context | undefined,
  marginMillis: number,
  runtime: Pick<InboxRuntime, 'startTimer'>,
): Deadline | undefined {
  if (typeof context?.getRemainingTimeInMillis !== 'function') return undefined;
  const remainingMillis = context.getRemainingTimeInMillis();
  if (!Number.isFinite(remainingMillis) || remainingMillis <= 0) return undefined;
  const deadlineMillis = Math.floor(Math.max(remainingMillis - marginMillis, remainingMillis / 2));
  // Beyond what a timer can wait (about 24.8 days) no Lambda runs: a test's or a script's context.
  if (deadlineMillis > MAX_TIMER_MILLIS) return undefined;
  const controller = new AbortController();
  let cancel = () => {};
  const reached = new Promise<void>((resolve) => {
    cancel = runtime.startTimer(
      deadlineMillis,
      () => {
        controller.abort(new RecordDeadlineError(deadlineMillis));
        resolve();
      },
      TimerPurpose.Deadline,
    );
  });
  return { signal: controller.signal, reached, cancel };
}
