/**
 * The states an inbox entry can be in. Today an entry is only ever written inside the
 * committing transaction, so it is always `COMPLETED`; the attribute exists so that a
 * lease mode for non-transactional side effects can add states without a data migration.
 *
 * @example
 * ```ts
 * if (entry.status === InboxStatus.Completed) console.log('already applied');
 * ```
 */
export const InboxStatus = {
  Completed: 'COMPLETED',
} as const;
/** One of the values of {@link InboxStatus}. */
export type InboxStatus = (typeof InboxStatus)[keyof typeof InboxStatus];

const SECONDS_PER_DAY = 86_400;

/**
 * Default lifetime of an inbox entry: SQS keeps a message at most 14 days, so a redelivery
 * can arrive at most 14 days after the first send, and the entry is written after that send.
 * One more day covers clock skew and a late DynamoDB TTL sweep.
 *
 * @example
 * ```ts
 * const ttlSeconds = DEFAULT_TTL_SECONDS * 2; // if you redrive FIFO DLQs back to the source
 * ```
 */
export const DEFAULT_TTL_SECONDS = 15 * SECONDS_PER_DAY;

/**
 * Bounds accepted for `ttlSeconds`, {@link DEFAULT_TTL_SECONDS} explains the default.
 *
 * @example
 * ```ts
 * if (ttlSeconds < TTL_SECONDS_RANGE.min) throw new Error('too short');
 * ```
 */
export const TTL_SECONDS_RANGE = { min: 60, max: 366 * SECONDS_PER_DAY } as const;

/**
 * Default number of records (standard queue) or message groups (FIFO) processed at once.
 *
 * @example
 * ```ts
 * createBatchProcessor(handler, { store, consumer: 'c', concurrency: DEFAULT_CONCURRENCY * 2 });
 * ```
 */
export const DEFAULT_CONCURRENCY = 10;

/**
 * Default attempts of one record's transaction when DynamoDB answers with a transient error.
 *
 * @example
 * ```ts
 * createBatchProcessor(handler, { store, consumer: 'c', transactionAttempts: DEFAULT_TRANSACTION_ATTEMPTS + 2 });
 * ```
 */
export const DEFAULT_TRANSACTION_ATTEMPTS = 3;

/**
 * DynamoDB's limits for one `TransactWriteItems` call. One slot is the inbox entry's, so
 * the business operations may use the rest.
 *
 * @example
 * ```ts
 * if (ops.length > TRANSACTION_LIMITS.maxBusinessOperations) throw new Error('split it');
 * ```
 */
export const TRANSACTION_LIMITS = {
  maxOperations: 100,
  maxBusinessOperations: 99,
  maxTransactionBytes: 4 * 1024 * 1024,
  maxItemBytes: 400 * 1024,
} as const;

/**
 * Longest dedup key accepted; DynamoDB's partition key allows 2,048 bytes in all.
 *
 * @example
 * ```ts
 * const key = eventId.slice(0, MAX_KEY_BYTES);
 * ```
 */
export const MAX_KEY_BYTES = 1024;

/**
 * Names of the metrics the processor emits through an optional metrics sink.
 *
 * @example
 * ```ts
 * metrics.addMetric(InboxMetric.Duplicates, 'Count', 1);
 * ```
 */
export const InboxMetric = {
  Processed: 'InboxProcessed',
  Duplicates: 'InboxDuplicates',
  Failures: 'InboxFailures',
  PermanentFailures: 'InboxPermanentFailures',
  DeadLettered: 'InboxDeadLettered',
  HandlerLatency: 'InboxHandlerLatency',
} as const;
/** One of the values of {@link InboxMetric}. */
export type InboxMetric = (typeof InboxMetric)[keyof typeof InboxMetric];
