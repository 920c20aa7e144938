import type { SQSRecord } from 'aws-lambda';
import { RecordStatus, SpanAttribute } from '../constants/values.js';
import type { InboxSpan, SpanAttributeValue } from '../core/InboxTracer.js';
import { keyHash, loggedKey } from '../core/loggedKey.js';
import { type RecordObservation, type StepMarks, UNMARKED } from '../core/RecordObservation.js';
import type { ResolvedOptions } from '../core/resolveOptions.js';
import { traceLinksOf } from '../core/traceContext.js';
import type { RecordOutcome } from '../core/types.js';
import { recordedErrorName } from '../errors/errorText.js';

/**
 * How one record of a batch is watched: its span (with a tracer), a child span per step, and
 * its one INFO outcome line. Settled once: by the record's outcome, or by the batch answering
 * at its deadline without it; what the record does after that changes neither the line nor the
 * ended span.
 *
 * @example
 * ```ts
 * const observed = observeRecord(record, options);
 * const outcome = await observed.withActive(() => processRecord(record, …, { observation: observed }));
 * observed.settle(outcome, false);
 * ```
 */
export interface ObservedRecord extends RecordObservation {
  /** Runs the record's processing with its span active (the handler's own spans nest in it). */
  withActive<T>(work: () => T): T;
  /** Ends the record's span and step spans and logs its outcome line; later calls do nothing. */
  settle(outcome: RecordOutcome, deadlineReached: boolean): void;
}

/**
 * Starts watching a record: its clock, and with `observability.tracer` its span, a CONSUMER
 * span named `process <queue>` with the OpenTelemetry messaging attributes
 * (opentelemetry.io/docs/specs/semconv/messaging/sqs, …/faas/aws-lambda: one span per message,
 * linked to the producer's context, never its child) and links to the contexts the record
 * carries (`AWSTraceHeader`, a `traceparent` attribute).
 *
 * @example
 * ```ts
 * const observed = observeRecord(record, options);
 * ```
 */
export function observeRecord(record: SQSRecord, options: ResolvedOptions): ObservedRecord {
  const startMillis = options.runtime.now();
  const queue = queueNameOf(record.eventSourceARN);
  const span = options.tracer?.startSpan({
    name: `process ${queue}`,
    kind: 'consumer',
    links: traceLinksOf(record, options.sources),
    attributes: {
      'messaging.system': 'aws_sqs',
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.destination.name': queue,
      'messaging.message.id': record.messageId,
      [SpanAttribute.Consumer]: options.consumer,
    },
  });
  return new Observed(record, options, startMillis, span);
}

class Observed implements ObservedRecord {
  readonly #record: SQSRecord;
  readonly #options: ResolvedOptions;
  readonly #startMillis: number;
  readonly #span: InboxSpan | undefined;
  readonly #openSteps = new Set<InboxSpan>();
  #key: string | undefined;
  #attempts: number | undefined;
  #stepsRun = 0;
  #stepsReplayed = 0;
  #settled = false;

  constructor(
    record: SQSRecord,
    options: ResolvedOptions,
    startMillis: number,
    span: InboxSpan | undefined,
  ) {
    this.#record = record;
    this.#options = options;
    this.#startMillis = startMillis;
    this.#span = span;
  }

  traceparent(): string | undefined {
    return this.#settled ? undefined : this.#span?.traceparent();
  }

  noteKey(key: string): void {
    this.#key = key;
  }

  noteAttempts(attempts: number): void {
    this.#attempts = attempts;
  }

  withActive<T>(work: () => T): T {
    return this.#span === undefined ? work() : this.#span.withActive(work);
  }

  async step<T>(name: string, run: (marks: StepMarks) => Promise<T>): Promise<T> {
    const span = this.#settled ? undefined : this.#span;
    if (span === undefined) return run(UNMARKED);
    const child = span.startChild(`step ${name}`, { [SpanAttribute.StepName]: name });
    this.#openSteps.add(child);
    try {
      return await child.withActive(() => run(this.#marksOf(child)));
    } catch (error) {
      child.recordError(recordedErrorName(error));
      throw error;
    } finally {
      this.#openSteps.delete(child);
      child.end();
    }
  }

  /**
   * Counts a step run when its function starts and replayed when the journal answers it, and
   * says which on its span as soon as it is known (so a step still running when the record
   * settles at its deadline is counted, and its span says it ran). A step refused before its
   * function (its claim refused, its lease lost) counts as neither, and its span carries no
   * `sqs_inbox.step.replayed`, only its error. Marks after its span ended note nothing.
   */
  #marksOf(child: InboxSpan): StepMarks {
    const mark = (replayed: boolean) => {
      if (!this.#openSteps.has(child)) return;
      if (replayed) this.#stepsReplayed += 1;
      else this.#stepsRun += 1;
      child.setAttributes({ [SpanAttribute.StepReplayed]: replayed });
    };
    return { started: () => mark(false), replayed: () => mark(true) };
  }

  settle(outcome: RecordOutcome, deadlineReached: boolean): void {
    if (this.#settled) return;
    this.#settled = true;
    const key = outcome.key ?? this.#key;
    const attempts = this.#attempts ?? receiveCountOf(this.#record);
    const durationMs = this.#options.runtime.now() - this.#startMillis;
    const failed =
      outcome.status === RecordStatus.Failed || outcome.status === RecordStatus.DeadLettered;
    const errorType = failed ? recordedErrorName(outcome.error) : undefined;
    this.#endSpans(outcome, { key, attempts, errorType, deadlineReached });
    this.#options.logger.info('message outcome', {
      consumer: this.#options.consumer,
      outcome: outcome.status,
      messageId: outcome.messageId,
      ...loggedKey(key, this.#options.logKeys),
      ...(attempts === undefined ? {} : { attempts }),
      durationMs,
      ...(errorType === undefined ? {} : { errorType }),
      ...(deadlineReached ? { deadlineReached } : {}),
    });
  }

  #endSpans(
    outcome: RecordOutcome,
    facts: {
      key: string | undefined;
      attempts: number | undefined;
      errorType: string | undefined;
      deadlineReached: boolean;
    },
  ): void {
    const span = this.#span;
    if (span === undefined) return;
    // A step still running when the batch answered at its deadline ends with its record.
    for (const step of this.#openSteps) {
      step.recordError(facts.errorType ?? 'RecordDeadlineError');
      step.end();
    }
    this.#openSteps.clear();
    const attributes: Record<string, SpanAttributeValue> = {
      [SpanAttribute.Outcome]: outcome.status,
      [SpanAttribute.StepsRun]: this.#stepsRun,
      [SpanAttribute.StepsReplayed]: this.#stepsReplayed,
      [SpanAttribute.DeadlineReached]: facts.deadlineReached,
    };
    // The hash only, even with `logKeys`: spans leave the account for tracing back ends.
    if (facts.key !== undefined) attributes[SpanAttribute.KeyHash] = keyHash(facts.key);
    if (facts.attempts !== undefined) attributes[SpanAttribute.Attempts] = facts.attempts;
    if (facts.errorType !== undefined) attributes['error.type'] = facts.errorType;
    span.setAttributes(attributes);
    if (facts.errorType !== undefined) span.recordError(facts.errorType);
    span.end();
  }
}

/** The queue's name: the last part of its ARN (`arn:aws:sqs:<region>:<account>:<name>`). */
function queueNameOf(arn: string | undefined): string {
  const name = arn?.split(':').at(-1);
  return name === undefined || name.length === 0 ? 'unknown' : name;
}

function receiveCountOf(record: SQSRecord): number | undefined {
  const count = Number(record.attributes?.ApproximateReceiveCount);
  return Number.isInteger(count) && count > 0 ? count : undefined;
}

/**
 * Every record's span ended and outcome line logged, with what the batch answers for it: a
 * record that had not settled when the batch answered at its deadline (or never started) is
 * marked so, its span ended now even though its processing may still run.
 *
 * @example
 * ```ts
 * settleObservations(records, outcomes, observed, inTime, options);
 * ```
 */
export function settleObservations(
  records: readonly SQSRecord[],
  outcomes: readonly RecordOutcome[],
  observed: ReadonlyMap<SQSRecord, ObservedRecord>,
  inTime: ReadonlySet<SQSRecord>,
  options: ResolvedOptions,
): void {
  records.forEach((record, index) => {
    const outcome = outcomes[index];
    if (outcome === undefined) return;
    const observation = observed.get(record) ?? observeRecord(record, options);
    observation.settle(outcome, !inTime.has(record));
  });
}
