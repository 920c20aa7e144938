import { InboxError } from './InboxError.js';
import { PermanentError } from './messageErrors.js';

/**
 * Another attempt holds the message's lease: a copy of the message (an SQS duplicate, a
 * re-publish) is running its steps now. Found by a step's claim, the pre-check or a step-less
 * commit; this copy runs nothing and is reported failed. With the
 * `retry` option group set (the construct's default), the processor makes SQS deliver it again
 * `leaseHeldMarginSeconds` after the lease ends; without it, after the queue's visibility timeout.
 * By then the holder has committed (this copy is then a duplicate) or released the lease.
 *
 * @example
 * ```ts
 * if (outcome.error instanceof LeaseHeldError) console.log(new Date(outcome.error.leaseUntilMillis));
 * ```
 * @public
 */
export class LeaseHeldError extends InboxError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'LeaseHeldError';
  /** When the holder's lease ends, in epoch milliseconds, unless it renews it. */
  readonly leaseUntilMillis: number;
  /** The SQS message id of the copy that holds the lease. */
  readonly holderMessageId: string;
  constructor(leaseUntilMillis: number, holderMessageId: string) {
    super(
      `Message ${holderMessageId} holds the lease of this message's key until ` +
        `${new Date(leaseUntilMillis).toISOString()}; this copy runs nothing and is delivered ` +
        "again after that lease ends (with the retry option group set) or after the queue's " +
        'visibility timeout (without it).',
    );
    this.leaseUntilMillis = leaseUntilMillis;
    this.holderMessageId = holderMessageId;
  }
}

/**
 * What an attempt was doing when it found its lease gone.
 *
 * @example
 * ```ts
 * if (error instanceof LeaseLostError && error.operation === LeaseOperation.Commit) {
 *   console.log('nothing was committed');
 * }
 * ```
 * @public
 */
export const LeaseOperation = {
  Journal: 'journal',
  Heartbeat: 'heartbeat',
  Commit: 'commit',
  Release: 'release',
} as const;
/**
 * One of the values of `LeaseOperation`.
 * @public
 */
export type LeaseOperation = (typeof LeaseOperation)[keyof typeof LeaseOperation];

/**
 * This attempt no longer owns the message's lease: it expired while the handler ran (a slow
 * step, a frozen container) and another attempt claimed it, or that attempt already finished.
 * The write that found out (a journal write, a heartbeat, the commit or the release) was
 * refused, and the attempt stops before its next one: it journals
 * nothing more and never commits. The record is reported failed; when SQS delivers it again it
 * is a duplicate, or it resumes from the journal.
 *
 * @example
 * ```ts
 * if (outcome.error instanceof LeaseLostError) console.log(outcome.error.operation);
 * ```
 * @public
 */
export class LeaseLostError extends InboxError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'LeaseLostError';
  /** The lease write that found the lease gone. */
  readonly operation: LeaseOperation;
  /** The step being journaled, when the journal write was refused. */
  readonly stepName: string | undefined;
  constructor(operation: LeaseOperation, stepName?: string, cause?: unknown) {
    super(
      `The attempt lost its lease on the message (its ${operation}${stepName ? ` of step ${stepName}` : ''} ` +
        'was refused): another attempt took over after the lease expired, or finished. Nothing ' +
        'more is written by this attempt. If this recurs, raise leaseMillis above your slowest ' +
        'handler, or let the heartbeat run (leave leaseMillis below the Lambda timeout).',
      { cause },
    );
    this.operation = operation;
    this.stepName = stepName;
  }
}

/**
 * A step was named wrongly: the name is not 1-64 characters from `A-Z a-z 0-9 . _ : -`, or the
 * handler used it twice in one run (each effect needs its own name, so that its journal entry
 * and idempotency key are its own). A programming error: the message is dead-lettered.
 *
 * @example
 * ```ts
 * declare const recipient: { id: string };
 * declare function send(context: StepContext): Promise<void>;
 * // ---cut---
 * await step(`email:${recipient.id}`, send); // one name per effect, stable across attempts
 * ```
 * @public
 */
export class StepNameError extends PermanentError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'StepNameError';
  /**
   * The name as the handler gave it (a non-string as its text). The message shows it quoted
   * and cut when `invalid`, and the name may hold data of the message (`email:<recipient id>`).
   */
  readonly stepName: string;
  /**
   * `invalid`: the name breaks the rule above; `repeated`: the handler ran a second step of
   * this name in one run.
   */
  readonly reason: 'invalid' | 'repeated';
  constructor(stepName: string, reason: 'invalid' | 'repeated', shown: string) {
    super(
      reason === 'invalid'
        ? `Step name ${shown} is not 1-64 characters from A-Z a-z 0-9 . _ : -; give the step such a name.`
        : `Step ${shown} ran twice in one handler run; give each effect its own step name ` +
            '(email:<recipient id>), the same on every attempt.',
    );
    this.stepName = stepName;
    this.reason = reason;
  }
}

/**
 * A step's result cannot be journaled: it is not a JSON value (a `Date`, a `Map`, a class
 * instance, `NaN`, a `bigint`…) or it is too large (over 32 KiB, or over 256 KiB for the
 * message's whole journal: `STEP_LIMITS`). The effect ran but was not journaled, so
 * nothing later can skip it; the message is dead-lettered with this reason, the steps journaled
 * before it kept. Return plain JSON (an id, a status), and keep large results elsewhere.
 *
 * @example
 * ```ts
 * await step('charge', async ({ idempotencyKey }) => {
 *   const charge = await psp.charge({ amountCents: message.body.amountCents, idempotencyKey });
 *   return { chargeId: charge.id };
 * });
 * ```
 * @public
 */
export class StepResultError extends PermanentError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'StepResultError';
  /** The step whose result could not be journaled. */
  readonly stepName: string;
  /** Where in the result the problem is (`result.createdAt`), or the size that was too large. */
  readonly problem: string;
  constructor(stepName: string, problem: string, cause?: unknown) {
    super(`The result of step ${stepName} cannot be journaled: ${problem}.`, { cause });
    this.stepName = stepName;
    this.problem = problem;
  }
}
