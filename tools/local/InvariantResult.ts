/** One checked invariant. */
export interface InvariantResult {
  readonly name: string;
  readonly holds: boolean;
  readonly detail: string;
  /**
   * Why the invariant was not checked (`holds` is then false): the target cannot show it, e.g.
   * AWS keeps no list of the emails SES sent. A report says SKIP, and it fails nothing.
   */
  readonly skipped?: string;
  /** Counts behind the result, for reports (e.g. `committed`, `inDeadLetterQueues`). */
  readonly figures?: Readonly<Record<string, number>>;
}
