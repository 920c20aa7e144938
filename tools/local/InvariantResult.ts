/** One checked invariant. */
export interface InvariantResult {
  readonly name: string;
  readonly holds: boolean;
  readonly detail: string;
  /** Counts behind the result, for reports (e.g. `committed`, `inDeadLetterQueues`). */
  readonly figures?: Readonly<Record<string, number>>;
}
