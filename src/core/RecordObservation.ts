/**
 * What a record's processing tells the batch's observation of it as it goes: the key once read,
 * the attempts a step's claim counted, each step (run inside its span). It also gives the trace
 * context the record's outbox items store. Without a tracer only the outcome line uses it.
 *
 * @example
 * ```ts
 * const result = await observation.step('charge', (replayed) => runStep(replayed));
 * ```
 */
export interface RecordObservation {
  /** The record span's W3C `traceparent` while it records; undefined without a tracer. */
  traceparent(): string | undefined;
  /** The record's dedup key, once derived (logged and traced by its hash only). */
  noteKey(key: string): void;
  /** The attempts the entry's claim counted (handlers with steps). */
  noteAttempts(attempts: number): void;
  /** Runs one step in a child span; `replayed` marks it answered from the journal. */
  step<T>(name: string, run: (replayed: () => void) => Promise<T>): Promise<T>;
}

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
  step: (_name, run) => run(() => {}),
};
