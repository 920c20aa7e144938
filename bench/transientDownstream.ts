/**
 * The dependency a handler calls — a partner API — down for `downSeconds` from {@link start},
 * then up for good. Counts every call, and those it refused: the load a retry policy puts on a
 * dependency while it is down.
 *
 * @example
 * ```ts
 * const downstream = new TransientDownstream(8);
 * downstream.start();
 * downstream.call(); // throws for 8 s, then returns
 * ```
 */
export class TransientDownstream {
  /** Calls made, refused ones included. */
  calls = 0;
  /** Calls refused while the dependency was down. */
  refusedCalls = 0;
  /** Down until this moment; down for good until {@link start} says when the outage began. */
  private upAtMillis = Number.POSITIVE_INFINITY;

  constructor(
    private readonly downSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The outage begins now. */
  start(): void {
    this.upAtMillis = this.now() + this.downSeconds * 1000;
  }

  /** One call: throws while the dependency is down (a retryable failure), returns after. */
  call(): void {
    this.calls++;
    if (this.now() >= this.upAtMillis) return;
    this.refusedCalls++;
    throw new Error(`the downstream is down for ${this.upAtMillis - this.now()} ms more`);
  }
}
