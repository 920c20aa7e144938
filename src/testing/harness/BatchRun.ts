import { retriedBySqs } from '../../batch/retriedBySqs.js';
import type { RecordStatus } from '../../constants/values.js';
import type { RecordOutcome } from '../../core/types.js';
import { InvalidConfigurationError } from '../../errors/configurationErrors.js';
import { NotModelledError } from '../NotModelledError.js';
import type { RecordingTracer } from './RecordingTracer.js';

/**
 * Where `InboxTest.run` makes an invocation die: right after the step's effect — its journal
 * write applied (`journaled`, the default) or lost with the invocation (`journaled: false`, the
 * window a step's `idempotencyKey` is for). In a batch of several records, the first to reach
 * the step's journal write takes the whole invocation down with it.
 *
 * @example
 * ```ts
 * await inbox.run(processor, [record], { crash: { afterStep: 'charge', journaled: false } });
 * ```
 * @public
 */
export interface CrashPoint {
  /** The step whose effect happens before the invocation dies. */
  readonly afterStep: string;
  /** Whether its journal write lands before the invocation dies; default true. */
  readonly journaled?: boolean;
}

/**
 * What happened to one record of a run.
 *
 * @example
 * ```ts
 * const { status, stepsRun, stepsReplayed } = run.records[0]!;
 * ```
 * @public
 */
export interface RecordRun {
  /** The record's SQS message id. */
  readonly messageId: string;
  /** processed, duplicate, deadLettered, failed, skipped or ignored. */
  readonly status: RecordStatus;
  /** Its dedup key, once derived. */
  readonly key?: string;
  /** Why it failed or was dead-lettered. */
  readonly error?: unknown;
  /** The steps whose function ran in this attempt, in order. */
  readonly stepsRun: readonly string[];
  /** The steps answered from the journal in this attempt, in order. */
  readonly stepsReplayed: readonly string[];
  /**
   * With `retry`: how long SQS keeps the record hidden before delivering it again, in seconds,
   * as the processor set it in this run (`ChangeMessageVisibility`): a lease-held copy's lease
   * remaining plus the margin, a backoff delay, or 0 for a FIFO record released behind its
   * delayed head. Undefined when the processor changed nothing (the record succeeded, was
   * dead-lettered, failed on its last receive or without a backoff) or SQS refused the change:
   * then the queue's own visibility timeout applies. SQS delivers it again no sooner: advance
   * `inbox.clock` by it before delivering `redeliveryOf(record)`.
   *
   * @example
   * ```ts
   * const delaySeconds = run.records[0]?.retryDelaySeconds ?? 0;
   * await inbox.clock.advanceMillis(delaySeconds * 1000);
   * await inbox.run(processor, [redeliveryOf(record)]);
   * ```
   */
  readonly retryDelaySeconds?: number;
}

/**
 * What a run of a batch did: each record's outcome in the event's order, or `crashed` when the
 * invocation died at its crash point (then no record has an outcome).
 *
 * @example
 * ```ts
 * import { expect } from 'vitest';
 * expect(run.records.map((record) => record.status)).toEqual(['processed', 'duplicate']);
 * ```
 * @public
 */
export interface BatchRun {
  /** Whether the invocation died at its crash point. */
  readonly crashed: boolean;
  /** Each record's outcome, in the event's order (none when it crashed). */
  readonly records: readonly RecordRun[];
  /** The ids the batch response asks SQS to deliver again (`batchItemFailures`): failed, skipped. */
  readonly failedMessageIds: readonly string[];
}

/**
 * A run's report from the processor's outcomes, the steps the tracer saw and the visibility each
 * record was given (`retryDelaysSeconds`, in the event's order, as the outcomes).
 */
export function batchRun(
  outcomes: readonly RecordOutcome[],
  tracer: RecordingTracer,
  crashed: boolean,
  retryDelaysSeconds: readonly (number | undefined)[] = [],
): BatchRun {
  const records = outcomes.map((outcome, index): RecordRun => {
    const steps = tracer.stepsOf(outcome.messageId);
    const retryDelaySeconds = retryDelaysSeconds[index];
    return {
      ...outcome,
      stepsRun: [...steps.run],
      stepsReplayed: [...steps.replayed],
      ...(retryDelaySeconds === undefined ? {} : { retryDelaySeconds }),
    };
  });
  return {
    crashed,
    records,
    failedMessageIds: outcomes.filter(retriedBySqs).map((outcome) => outcome.messageId),
  };
}

/**
 * The report of a run whose invocation did not die, or the error that says why the run cannot
 * be told: no record's span reached the harness's tracer (the processor has a tracer of its
 * own, so every record's steps would read empty), the crash point was never reached, or a
 * record met something the in-memory DynamoDB does not model.
 */
export function endedRun(
  outcomes: readonly RecordOutcome[],
  tracer: RecordingTracer,
  run: {
    readonly crash: CrashPoint | undefined;
    readonly consumerSpansBefore: number;
    readonly retryDelaysSeconds: readonly (number | undefined)[];
  },
): BatchRun {
  if (outcomes.length > 0 && tracer.consumerSpans === run.consumerSpansBefore) {
    throw new InvalidConfigurationError(
      'observability.tracer',
      'a tracer other than the harness’s',
      'inbox.options.observability.tracer, which tells run the steps each record ran: spread ' +
        'inbox.options.observability into the processor’s observability (add your logger beside ' +
        'it), or call the processor itself to test a tracer of your own',
    );
  }
  if (run.crash !== undefined) {
    const steps = outcomes.flatMap((outcome) => tracer.stepsOf(outcome.messageId).run);
    throw new InvalidConfigurationError(
      'crash.afterStep',
      run.crash.afterStep,
      `a step this batch journals; it ran ${steps.length > 0 ? steps.join(', ') : 'none'}`,
    );
  }
  const notModelled = outcomes.find((outcome) => outcome.error instanceof NotModelledError);
  if (notModelled) throw notModelled.error;
  return batchRun(outcomes, tracer, false, run.retryDelaysSeconds);
}
