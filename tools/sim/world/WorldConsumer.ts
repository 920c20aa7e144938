/**
 * The consumer a world runs: the reference ledger (its writes also guarded by business
 * conditions), the chaos run's counter (no condition of its own, so its exactly-once rests on
 * the inbox alone and a broken inbox shows at once), or the reference notifier (an email and a
 * receipt in steps, under the fenced lease, then one write in the inbox transaction).
 *
 * @example
 * ```ts
 * if (config.consumer === WorldConsumer.Counter) expectTotals();
 * ```
 */
export const WorldConsumer = {
  Ledger: 'ledger',
  Counter: 'counter',
  Notifier: 'notifier',
} as const;
/** One of the values of {@link WorldConsumer}. */
export type WorldConsumer = (typeof WorldConsumer)[keyof typeof WorldConsumer];
