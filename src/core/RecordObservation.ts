/**
 * What a record's processing tells the batch's observation of it as it goes: the key once read,
 * the attempts a step's claim counted, each step (run inside its span). It also gives the trace
 * context the record's outbox items store. Without a tracer only the outcome line uses it.
 *
 * @example
 * ```ts
 * const result = await observation.step('charge', (marks) => runStep(marks));
 * ```
 */
export interface RecordObservation {
  /** The record span's W3C `traceparent` while it records; undefined without a tracer. */
  traceparent(): string | undefined;
  /** The record's dedup key, once derived (logged and traced by its hash only). */
  noteKey(key: string): void;
  /** The attempts the entry's claim counted (handlers with steps). */
  noteAttempts(attempts: number): void;
  /**
   * Runs one step in a child span; `run` marks the step `started` when its function starts, or
   * `replayed` when it is answered from the journal. A step marked neither was refused before its
   * function (its claim failed, the lease was lost…): it counts as neither run nor replayed.
   */
  step<T>(name: string, run: (marks: StepMarks) => Promise<T>): Promise<T>;
}

/**
 * What a step tells its observation as it goes: at most one of the two, once.
 *
 * @example
 * ```ts
 * marks.started();
 * const result = await stepFunction(context);
 * ```
 */
export interface StepMarks {
  /** The step's function starts: the step counts as run. */
  started(): void;
  /** The step is answered from the journal (or a result in hand), its function not run. */
  replayed(): void;
}

/** Marks that note nothing: a step outside any observation. */
export const UNMARKED: StepMarks = { started: () => {}, replayed: () => {} };

/**
 * The observation of a record processed outside a batch's observer (a direct call in a test):
 * it notes nothing and runs each step as it is.
 *
 * @example
 * ```ts
 * const observation = batch.observation ?? UNOBSERVED;
 * ```
 */
export const UNOBSERVED: RecordObservation = {
  traceparent: () => undefined,
  noteKey: () => {},
  noteAttempts: () => {},
  step: (_name, run) => run(UNMARKED),
};
