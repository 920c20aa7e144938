/**
 * The states an inbox entry can be in. A handler without steps writes its entry only inside
 * the committing transaction, so it is always `COMPLETED`. A handler with steps claims the
 * entry at its first step (`IN_PROGRESS`, under a lease), journals each step on it, and either
 * commits it (`COMPLETED`) or releases it on failure (`FAILED`, the journal kept). Only a
 * `COMPLETED` entry makes a message a duplicate.
 *
 * @example
 * ```ts
 * import type { InboxEntry } from 'sqs-inbox/types';
 * declare const entry: InboxEntry;
 * // ---cut---
 * if (entry.status === InboxStatus.Completed) console.log('already applied');
 * ```
 * @public
 */
export const InboxStatus = {
  InProgress: 'IN_PROGRESS',
  Completed: 'COMPLETED',
  Failed: 'FAILED',
} as const;
/**
 * One of the values of `InboxStatus`.
 * @public
 */
export type InboxStatus = (typeof InboxStatus)[keyof typeof InboxStatus];

const SECONDS_PER_DAY = 86_400;

/**
 * Default lifetime of an inbox entry: 23 days, how long a message can still come back with one
 * DLQ redrive, plus a day for clock skew and a late DynamoDB TTL sweep, with SQS's default
 * retention (4 days) and a DLQ that keeps messages 14 days: 4 days in its queue, 14 in the DLQ
 * (a message the library sends there, like any in a FIFO DLQ, starts that clock afresh) and 4
 * again once redriven (a redrive restarts it too). Longer source retention needs a longer TTL:
 * `2 × retention + DLQ retention + 1 day`.
 *
 * @example
 * ```ts
 * const ttlSeconds = 2 * 14 * 86_400 + 14 * 86_400 + 86_400; // 14-day retention everywhere
 * ```
 */
export const DEFAULT_TTL_SECONDS = 23 * SECONDS_PER_DAY;

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
 * The `maxReceiveCount` values SQS accepts in a redrive policy.
 *
 * @example
 * ```ts
 * if (count > MAX_RECEIVE_COUNT_RANGE.max) throw new Error('too many');
 * ```
 */
export const MAX_RECEIVE_COUNT_RANGE = { min: 1, max: 1000 } as const;

/**
 * Default cap on the records (standard queue) or message groups (FIFO) processed at once: a
 * batch of up to 100 runs whole at once. A store whose client it did not build itself keeps
 * the default within that client's socket pool, assumed the SDK's {@link SDK_DEFAULT_MAX_SOCKETS}.
 *
 * @example
 * ```ts
 * createBatchProcessor(handler, {
 *   store, consumer: 'ledger', schema: PaymentSchema, key: ({ body }) => body.eventId,
 *   performance: { concurrency: DEFAULT_CONCURRENCY * 2 },
 * });
 * ```
 */
export const DEFAULT_CONCURRENCY = 100;

/**
 * The AWS SDK's default socket pool per client (`maxSockets`): requests beyond it wait for a
 * socket.
 *
 * @example
 * ```ts
 * const agent = { maxSockets: Math.max(SDK_DEFAULT_MAX_SOCKETS, concurrency) };
 * ```
 */
export const SDK_DEFAULT_MAX_SOCKETS = 50;

/**
 * How the processor reads the inbox before committing, so that known duplicates skip work.
 * - `concurrent` (default): one consistent `BatchGetItem` for the whole batch, sent as the
 *   handlers start. A record that starts after it answered and finds its message committed
 *   skips its handler; one whose handler finished after it answered skips its commit. No
 *   record waits for it: a new message costs one round trip in series, its commit.
 * - `before`: the same read, awaited before any handler runs: a known duplicate never runs its
 *   handler, at the price of one round trip in series per batch.
 * - `off`: no read; the commit's condition finds every duplicate, after its handler ran.
 *
 * The read is a hint, never proof: a message it saw committed is a duplicate, but one it did not
 * see is decided by the commit's condition.
 *
 * @example
 * ```ts
 * createBatchProcessor(handler, {
 *   store, consumer: 'ledger', schema: PaymentSchema, key: ({ body }) => body.eventId,
 *   performance: { precheck: Precheck.Before },
 * });
 * ```
 * @public
 */
export const Precheck = {
  Concurrent: 'concurrent',
  Before: 'before',
  Off: 'off',
} as const;
/**
 * One of the values of `Precheck`.
 * @public
 */
export type Precheck = (typeof Precheck)[keyof typeof Precheck];

/**
 * Default attempts of one record's transaction when DynamoDB answers with a transient error.
 *
 * @example
 * ```ts
 * createBatchProcessor(handler, { store, consumer: 'c', key, reliability: { transactionAttempts: DEFAULT_TRANSACTION_ATTEMPTS + 2 } });
 * ```
 */
export const DEFAULT_TRANSACTION_ATTEMPTS = 3;

/**
 * Limits of steps. A step's name is 1-64 characters from `A-Z a-z 0-9 . _ : -`; its result,
 * as JSON, at most 32 KiB; the journal of one message at most 256 KiB, so the entry stays well
 * under DynamoDB's 400 KB item limit. Keep a large result elsewhere (S3) and journal its address.
 *
 * @example
 * ```ts
 * declare const result: object;
 * declare function storeInS3(value: object): Promise<string>;
 * // ---cut---
 * if (Buffer.byteLength(JSON.stringify(result)) > STEP_LIMITS.resultBytes) await storeInS3(result);
 * ```
 * @public
 */
export const STEP_LIMITS = {
  namePattern: /^[A-Za-z0-9._:-]{1,64}$/,
  resultBytes: 32 * 1024,
  journalBytes: 256 * 1024,
} as const;

/**
 * The shortest lease `leaseMillis` may set; the heartbeat's share of it (the lease is renewed
 * every third of its length while a step runs, so two renewals can be lost before it lapses);
 * and the clock skew between hosts the lease tolerates. Lease expiry compares the holder's clock
 * (`leaseUntil` is written with it) with the claimer's: every `leaseUntil` is written this much
 * past the lease's end, so a host whose clock runs up to 5 s ahead never takes over a lease that
 * has not run its length, however short (Lambda's hosts keep NTP time, far closer than that). A
 * lease taken over after its holder stopped (a crash, a timeout) is taken 5 s later in exchange.
 *
 * @example
 * ```ts
 * createBatchProcessor(handler, {
 *   store, consumer: 'mailer', schema: PaymentSchema, key: ({ body }) => body.eventId,
 *   reliability: {
 *     leaseMillis: Math.max(LEASE_LIMITS.minMillis, Number(process.env.LEASE_MILLIS) || 60_000),
 *   },
 * });
 * ```
 * @public
 */
export const LEASE_LIMITS = {
  minMillis: 1_000,
  heartbeatShare: 1 / 3,
  clockSkewMillis: 5_000,
} as const;

/**
 * The bounds of the `retry` option group: SQS counts a message's visibility from its receive
 * and refuses more than 12 hours in all, so a delay set after the receive is kept below that
 * by the longest function timeout (900 s) and batching window (300 s) that may have passed.
 *
 * @example
 * ```ts
 * import type { RetrySettings } from 'sqs-inbox/types';
 * const retry: RetrySettings = {
 *   backoff: { firstDelaySeconds: 10, maxDelaySeconds: RETRY_LIMITS.maxDelaySeconds },
 * };
 * ```
 * @public
 */
export const RETRY_LIMITS = {
  /** The largest `backoff.maxDelaySeconds`: 43,200 less 900 and 300. */
  maxDelaySeconds: 42_000,
  /** SQS's limit on a message's visibility counted from its receive (12 hours). */
  visibilitySeconds: 43_200,
  /**
   * The longest batching window: the receive may precede the invocation by this much (more only
   * for an invocation Lambda retried after a throttle; SQS then refuses a delay near the cap).
   */
  batchingWindowSeconds: 300,
  /** A lease-held copy's default wait past the holder's lease. */
  defaultLeaseHeldMarginSeconds: 2,
  /** The largest `leaseHeldMarginSeconds`. */
  maxLeaseHeldMarginSeconds: 900,
} as const;

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
 * Names of the metrics the processor and the outbox relay write: to `observability.metrics`
 * when it is given (nothing else is written then), otherwise, when
 * `POWERTOOLS_METRICS_NAMESPACE` is set, as CloudWatch embedded-metric-format lines on
 * standard output.
 *
 * @remarks
 * The library's own lines are read as Powertools Metrics would write them, so one dashboard
 * reads either: one line per batch (also when the batch answers at its deadline; at most 100
 * metrics and 100 values of one metric per line, more lines when a batch needs them), under the
 * namespace `POWERTOOLS_METRICS_NAMESPACE`, with the one dimension `service` =
 * `POWERTOOLS_SERVICE_NAME` (`service_undefined` without it; a relay's is its name). The
 * `InboxConsumer` and `OutboxRelay` constructs set both variables. A function that sets no
 * namespace writes no metric line and pays for no custom metric.
 * `POWERTOOLS_METRICS_DISABLED=true` (or `POWERTOOLS_DEV=true` without it) turns the lines off,
 * as it turns Powertools off; `observability.metrics: false` turns them off in code. CloudWatch
 * Logs extracts the metrics: no permission or API call is needed.
 *
 * @example
 * ```ts
 * import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
 * const duplicates = new Metric({
 *   namespace: 'payments', metricName: InboxMetric.Duplicates, dimensionsMap: { service: 'ledger' },
 *   statistic: 'Sum',
 * });
 * ```
 * @public
 */
export const InboxMetric = {
  /** `Count`: records the handler processed and committed. */
  Processed: 'InboxProcessed',
  /** `Count`: copies of messages already committed, acknowledged without running the handler again. */
  Duplicates: 'InboxDuplicates',
  /** `Count`: every record neither processed nor a duplicate. */
  Failures: 'InboxFailures',
  /** `Count`: records that failed permanently (a `PermanentError`). */
  PermanentFailures: 'InboxPermanentFailures',
  /** `Count`: records the library sent to its dead-letter queue. */
  DeadLettered: 'InboxDeadLettered',
  /**
   * `Milliseconds`: how long a record's handler ran, one value per record whose handler ran and
   * whose message was not found committed meanwhile.
   */
  HandlerLatency: 'InboxHandlerLatency',
  /** `Count`: steps whose function ran (handlers with steps). */
  StepsRun: 'InboxStepsRun',
  /** `Count`: steps answered from the journal without running. */
  StepsReplayed: 'InboxStepsReplayed',
  /** `Count`: copies reported failed because another attempt held the message's live lease. */
  LeasesHeld: 'InboxLeasesHeld',
  /** `Count`: attempts that found their lease taken over, and stopped. */
  LeasesLost: 'InboxLeasesLost',
  /**
   * `Count`: claims that took over a lease another attempt held and let lapse: that attempt
   * crashed or timed out mid-steps (a crashed holder never counts its loss in
   * `InboxLeasesLost`). Each also logs a WARN line `lease taken over`.
   */
  LeaseTakeovers: 'InboxLeaseTakeovers',
  /**
   * `Count`: records tried again in the invocation after DynamoDB cancelled their commit for a
   * `TransactionConflict` (another transaction held one of its items): the handler runs again
   * each time, so a steady rise names a hot item.
   */
  ConflictsRetried: 'InboxConflictsRetried',
  /**
   * `Count`: transactions that committed several messages at once: with `coalesce`, or, without
   * it, messages whose updates of one item merged.
   */
  SharedTransactions: 'InboxSharedTransactions',
  /** `Count`: messages committed in such a transaction. */
  SharedCommits: 'InboxSharedCommits',
  /**
   * `Count`: items such a transaction wrote once for several of its messages: one update adding
   * the amounts of their unconditional `ADD`s of numbers to a hot item.
   */
  AggregatedItems: 'InboxAggregatedItems',
  /**
   * `Count`: the messages' updates those merged updates stand for (at least two per item); its
   * ratio to `InboxAggregatedItems` is the messages per write of a hot item.
   */
  AggregatedUpdates: 'InboxAggregatedUpdates',
  /**
   * `Seconds`: with `retry`, the delay a failed record was given before SQS delivers it again,
   * one value per delayed record (its sum, count and maximum come out).
   */
  RetryDelaySeconds: 'InboxRetryDelaySeconds',
  /** `Count`: with `retry`, copies refused by a live lease set to come back just after it ends. */
  LeaseHeldRetimed: 'InboxLeaseHeldRetimed',
  /**
   * `Count`: with `retry`, records whose visibility could not be changed (the call failed, or
   * SQS refused the entry); each stays reported failed and comes back after the queue's timeout.
   */
  VisibilityChangesFailed: 'InboxVisibilityChangesFailed',
  /** `Count`: outgoing messages the outbox relay sent (a message sent again counts again). */
  OutboxMessagesRelayed: 'OutboxMessagesRelayed',
  /** `Count`: outgoing messages (or unreadable records) the relay dead-lettered with their reason. */
  OutboxDeadLettered: 'OutboxDeadLettered',
  /** `Count`: stream records the relay reported failed, for Lambda to retry. */
  OutboxRecordsFailed: 'OutboxRecordsFailed',
} as const;
/**
 * One of the values of `InboxMetric`.
 * @public
 */
export type InboxMetric = (typeof InboxMetric)[keyof typeof InboxMetric];

/**
 * What happened to one record.
 *
 * @example
 * ```ts
 * const failed = outcomes.filter((o) => o.status === RecordStatus.Failed);
 * ```
 * @public
 */
export const RecordStatus = {
  Processed: 'processed',
  Duplicate: 'duplicate',
  DeadLettered: 'deadLettered',
  Failed: 'failed',
  Skipped: 'skipped',
  /** A notice that is no event (S3's `s3:TestEvent`): acknowledged, no entry, no handler. */
  Ignored: 'ignored',
} as const;
/**
 * One of the values of `RecordStatus`.
 * @public
 */
export type RecordStatus = (typeof RecordStatus)[keyof typeof RecordStatus];

/**
 * Which DynamoDB transaction limit a {@link TransactionLimitError} is about.
 *
 * @example
 * ```ts
 * if (error instanceof TransactionLimitError && error.limit === TransactionLimit.SameItem) {
 *   console.error('two operations on one item: merge them into one update');
 * }
 * ```
 * @public
 */
export const TransactionLimit = {
  OperationCount: 'operationCount',
  TransactionBytes: 'transactionBytes',
  ItemBytes: 'itemBytes',
  SameItem: 'sameItem',
  InvalidOperation: 'invalidOperation',
  /** The library's own rule: no handler operation on the inbox table. */
  InboxTable: 'inboxTable',
  /** The library's own rule: no handler operation on the outbox table (publish instead). */
  OutboxTable: 'outboxTable',
} as const;
/**
 * One of the values of `TransactionLimit`.
 * @public
 */
export type TransactionLimit = (typeof TransactionLimit)[keyof typeof TransactionLimit];

/**
 * Why a {@link TransientStoreError} happened.
 *
 * @example
 * ```ts
 * if (error instanceof TransientStoreError && error.reason === TransientReason.Throttling) {
 *   console.warn('DynamoDB throttled the commit: SQS delivers the message again');
 * }
 * ```
 * @public
 */
export const TransientReason = {
  TransactionConflict: 'TransactionConflict',
  Throttling: 'Throttling',
  ServerError: 'ServerError',
  Timeout: 'Timeout',
} as const;
/**
 * One of the values of `TransientReason`.
 * @public
 */
export type TransientReason = (typeof TransientReason)[keyof typeof TransientReason];

/**
 * The prefix of the library's message attributes on a dead-lettered message; the message's own
 * attributes with it are not copied, so a redriven message cannot pass off stale reasons.
 *
 * @example
 * ```ts
 * const ours = Object.keys(record.messageAttributes).filter((name) =>
 *   name.startsWith(DEAD_LETTER_ATTRIBUTE_PREFIX),
 * );
 * ```
 * @public
 */
export const DEAD_LETTER_ATTRIBUTE_PREFIX = 'inbox.';

/**
 * Names of the message attributes set on a dead-lettered message.
 *
 * @example
 * ```ts
 * const reason = record.messageAttributes[DeadLetterAttribute.Error]?.stringValue;
 * ```
 * @public
 */
export const DeadLetterAttribute = {
  Error: 'inbox.error',
  ErrorMessage: 'inbox.errorMessage',
  Consumer: 'inbox.consumer',
  OriginalMessageId: 'inbox.originalMessageId',
  SourceQueueArn: 'inbox.sourceQueueArn',
  /** The dedup key, with `observability.logKeys: true`. */
  Key: 'inbox.key',
  /** The dedup key's `keyHash`, without `logKeys`. */
  KeyHash: 'inbox.keyHash',
  /** On a copy `sqs-inbox dlq redrive` sent back: the DLQ message it was. */
  RedriveOf: 'inbox.redriveOf',
  /** On a copy `sqs-inbox dlq redrive` sent back: the run that sent it. */
  RedriveOperation: 'inbox.redriveOp',
} as const;
/**
 * One of the values of `DeadLetterAttribute`.
 * @public
 */
export type DeadLetterAttribute = (typeof DeadLetterAttribute)[keyof typeof DeadLetterAttribute];

/**
 * Attribute names of an inbox entry that the table's definition or tooling depends on: the
 * partition key and the TTL attribute, which the store writes and the `InboxTable` construct
 * declares, and the entry's format version (see {@link FORMAT_VERSIONS}).
 *
 * @example
 * ```ts
 * import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
 * new Table(stack, 'Inbox', {
 *   partitionKey: { name: InboxAttribute.PartitionKey, type: AttributeType.STRING },
 *   timeToLiveAttribute: InboxAttribute.ExpiresAt,
 * });
 * ```
 * @public
 */
export const InboxAttribute = {
  PartitionKey: 'pk',
  ExpiresAt: 'expiresAt',
  /** The entry's format version, a number; absent on entries 0.1.0 wrote (version 1). */
  FormatVersion: 'formatVersion',
} as const;

/**
 * The start of the partition key of every operator item in the inbox table (a redrive's lock,
 * an operation's audit record): no entry's key, since an entry's starts with its consumer, which
 * is never empty. Tooling that reads the table's entries skips the items it starts.
 *
 * @example
 * ```ts
 * const entries = items.filter((item) => !String(item.pk).startsWith(OPERATION_ITEM_PREFIX));
 * ```
 */
export const OPERATION_ITEM_PREFIX = '#ops#';

/**
 * The format version of what the library stores: each inbox entry and each outbox item carries
 * its own in the attribute `formatVersion` (`InboxAttribute.FormatVersion`,
 * `OutboxAttribute.FormatVersion`). An item without one was written before items carried it
 * (by 0.1.0) and is of version 1, which is what this release writes. A release writes the version
 * given here and reads every version from 1 up to it.
 *
 * The compatibility rule: the version goes up only for a change that a reader of the previous
 * version would misread — an attribute it reads removed, renamed, given another type or another
 * meaning, or a new attribute that changes what the others mean (a body stored compressed, say).
 * An attribute added that older readers may ignore keeps the version. A reader interprets an
 * item by its version alone and never guesses at a newer one: the store refuses an inbox entry
 * of a newer version with `FormatVersionError` (the message is retried, and the entry is neither
 * overwritten nor taken over: the conditions that let a commit or a claim resume an entry
 * require `formatVersion` absent or at most the writer's), and the relay dead-letters an outbox
 * item of a newer version whole, with its image and `FormatVersionError`, for `redriveOutbox` to
 * relay once the relay is upgraded. So upgrade the relay before (or with) the consumers that
 * publish, and do not roll a consumer back across a version change.
 *
 * @example
 * ```ts
 * import type { DynamoDBRecord } from 'aws-lambda';
 * declare const streamRecord: DynamoDBRecord; // of the outbox table's stream
 * // ---cut---
 * const version = Number(streamRecord.dynamodb?.NewImage?.[OutboxAttribute.FormatVersion]?.N ?? 1);
 * if (version > FORMAT_VERSIONS.outboxItem) console.log('written by a newer sqs-inbox');
 * ```
 * @public
 */
export const FORMAT_VERSIONS = {
  inboxEntry: 1,
  outboxItem: 1,
} as const;

/**
 * The prefix of every variable of the contract: the construct refuses extra `environment`
 * entries that start with it, so the contract can grow without clashing with yours.
 *
 * @example
 * ```ts
 * const ours = Object.keys(process.env).filter((name) => name.startsWith(INBOX_ENVIRONMENT_PREFIX));
 * ```
 * @public
 */
export const INBOX_ENVIRONMENT_PREFIX = 'INBOX_';

/**
 * The environment contract between the `InboxConsumer` construct (`sqs-inbox/cdk`), which sets
 * these variables on the function, and `inboxConfigFromEnvironment`, which reads them. Each
 * business table reaches the function as `BusinessTablePrefix` + its logical name.
 *
 * @remarks
 * A missing or invalid variable makes `inboxConfigFromEnvironment()` throw an
 * `EnvironmentError` at cold start, naming every one of them. It takes
 * `{ env, dynamoDBClient, sqsClient }` to read another environment or to use your clients.
 *
 * @example
 * ```ts
 * const consumer = process.env[InboxEnvironment.Consumer];
 * const accounts = process.env[businessTableVariable('accounts')];
 * ```
 * @public
 */
export const InboxEnvironment = {
  /** The inbox table's name, from the construct's inbox table; read as `options.store`. */
  TableName: 'INBOX_TABLE_NAME',
  /** The construct's `consumer`; read as `options.consumer`. */
  Consumer: 'INBOX_CONSUMER',
  /** The construct's `ttl`, in whole seconds; read as `options.ttlSeconds`. */
  TtlSeconds: 'INBOX_TTL_SECONDS',
  /** The URL of the construct's dead-letter queue; read as `options.deadLetter.queueUrl`. */
  DeadLetterQueueUrl: 'INBOX_DEAD_LETTER_QUEUE_URL',
  /**
   * Each entry of the construct's `businessTables` as this prefix + its logical name, the
   * table's name as value; read by `table('<name>')` and `tables`.
   */
  BusinessTablePrefix: 'INBOX_BUSINESS_TABLE_',
  /**
   * The construct's `deadLetter.maxReceiveCount`; read as `options.deadLetter.maxReceiveCount`.
   */
  MaxReceiveCount: 'INBOX_MAX_RECEIVE_COUNT',
  /**
   * Comma-separated `MessageSource` values, each kind once: where the queue's messages come
   * from (the construct's `sources`; `sqs` without them); read as `options.sources`.
   */
  Sources: 'INBOX_SOURCES',
  /**
   * Optional: a key declared as data by the construct's `key` (`attribute:<name>` or
   * `field:<path>`); read as `options.key`.
   */
  Key: 'INBOX_KEY',
  /**
   * Optional: the outbox table `tx.publish` writes to (the construct's `outbox`, or the
   * `publisherEnvironment()` of `OutboxPipe` or `OutboxRelay`); read as the store's `outbox`.
   */
  OutboxTableName: 'INBOX_OUTBOX_TABLE_NAME',
  /**
   * Required with the outbox table: how long its items live (the outbox's `retention`), in
   * whole seconds from 172,800 to 31,622,400; read as the store's `outbox.retentionSeconds`.
   */
  OutboxRetentionSeconds: 'INBOX_OUTBOX_RETENTION_SECONDS',
  /**
   * Optional, with the outbox table, set by `OutboxPipe`'s `publisherEnvironment()`: the
   * outbox is relayed by an EventBridge pipe to this one SQS queue, so every message must go
   * there, one per outbox item; read as the store's `outbox.pipeDestination`, and `tx.publish`
   * refuses what a pipe cannot send.
   */
  OutboxPipeDestination: 'INBOX_OUTBOX_PIPE_DESTINATION',
  /**
   * Each entry of the outbox's `destinations` as this prefix + its logical name; read by
   * `destination('<name>')` and `destinations`.
   */
  DestinationPrefix: 'INBOX_DESTINATION_',
  /**
   * Optional, with `INBOX_RETRY_MAX_DELAY_SECONDS`: the first delay of the per-message backoff
   * (the construct's `retry.backoff`; the processor's `retry.backoff.firstDelaySeconds`). Any
   * `INBOX_RETRY_*` sets `options.retry` (its client the given `sqsClient`).
   */
  RetryFirstDelaySeconds: 'INBOX_RETRY_FIRST_DELAY_SECONDS',
  /** Optional, with the first delay: the backoff's cap (`retry.backoff.maxDelaySeconds`). */
  RetryMaxDelaySeconds: 'INBOX_RETRY_MAX_DELAY_SECONDS',
  /**
   * Optional: a lease-held copy's wait past the lease (`retry.leaseHeldMarginSeconds`); the
   * construct sets it unless its `retry` is `false`.
   */
  RetryLeaseHeldMarginSeconds: 'INBOX_RETRY_LEASE_HELD_MARGIN_SECONDS',
  /**
   * The relay's: where it dead-letters what a destination refuses (the relay's dead-letter
   * queue); read by `outboxRelayFromEnvironment()`.
   */
  RelayDeadLetterQueueUrl: 'INBOX_RELAY_DEAD_LETTER_QUEUE_URL',
} as const;

/**
 * CDK context keys the constructs of `sqs-inbox/cdk` read (`cdk deploy -c <key>=<value>`, or
 * `context` in `cdk.json`).
 *
 * `MetricMathAlarms`: `false` leaves out the alarms that watch a metric-math expression
 * (`InboxConsumer`'s `FailureRateAlarm`), which an emulator's CloudFormation may refuse (MiniStack
 * 1.5.33 refuses an `AWS::CloudWatch::Alarm` with `Metrics`); the construct then adds an info
 * annotation naming what it left out. Default `true`: every alarm, as AWS deploys them.
 *
 * @example
 * ```ts
 * import { App } from 'aws-cdk-lib';
 * const app = new App({ context: { [CdkContext.MetricMathAlarms]: false } }); // an emulator's deploy
 * ```
 * @public
 */
export const CdkContext = {
  MetricMathAlarms: 'sqs-inbox:metricMathAlarms',
} as const;

/**
 * The rule for consumer names, shared by the processor's options and the construct's props.
 * 128 characters leave room in DynamoDB's 2,048-byte partition key for a 1,024-byte dedup key;
 * `#` is excluded because it separates consumer and key in the entry's partition key.
 *
 * @example
 * ```ts
 * CONSUMER_NAME_PATTERN.test('ledger.eu-west-1'); // => true
 * CONSUMER_NAME_PATTERN.test('ledger#eu'); // => false: '#' separates consumer and key
 * ```
 * @public
 */
export const CONSUMER_NAME_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
/**
 * {@link CONSUMER_NAME_PATTERN} in words, for error messages.
 *
 * @example
 * ```ts
 * throw new Error(`consumer must be ${CONSUMER_NAME_RULE}`);
 * ```
 */
export const CONSUMER_NAME_RULE = '1-128 characters from A-Z a-z 0-9 . _ : - (no "#")';

/**
 * The rule for a business table's logical name: it becomes part of an environment variable
 * name (`INBOX_BUSINESS_TABLE_<name>`), which Lambda limits to letters, digits and `_`.
 *
 * @example
 * ```ts
 * BUSINESS_TABLE_NAME_PATTERN.test('accounts'); // => true
 * ```
 */
export const BUSINESS_TABLE_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/**
 * The environment variable that carries a business table's name: `INBOX_BUSINESS_TABLE_<name>`.
 *
 * @example
 * ```ts
 * businessTableVariable('accounts'); // => 'INBOX_BUSINESS_TABLE_accounts'
 * ```
 * @public
 */
export function businessTableVariable(name: string): string {
  return `${InboxEnvironment.BusinessTablePrefix}${name}`;
}

/**
 * The environment variable that carries an outbox destination's address (queue URL, topic or
 * bus ARN): `INBOX_DESTINATION_<name>`. Names follow `BUSINESS_TABLE_NAME_PATTERN`.
 *
 * @example
 * ```ts
 * destinationVariable('credits'); // => 'INBOX_DESTINATION_credits'
 * ```
 * @public
 */
export function destinationVariable(name: string): string {
  return `${InboxEnvironment.DestinationPrefix}${name}`;
}

/**
 * What an outgoing message's `destination` names, told by its address: an SQS queue URL
 * (`.fifo` at the end for a FIFO queue), an SNS topic ARN (the same), or an EventBridge event
 * bus ARN.
 *
 * @example
 * ```ts
 * const address = 'https://sqs.eu-west-1.amazonaws.com/123456789012/credits.fifo';
 * if (parseDestination(address)?.kind === DestinationKind.SqsFifoQueue) console.log('ordered per group');
 * ```
 * @public
 */
export const DestinationKind = {
  SqsQueue: 'sqs',
  SqsFifoQueue: 'sqs-fifo',
  SnsTopic: 'sns',
  SnsFifoTopic: 'sns-fifo',
  EventBus: 'eventbridge',
} as const;
/**
 * One of the values of `DestinationKind`.
 * @public
 */
export type DestinationKind = (typeof DestinationKind)[keyof typeof DestinationKind];

/**
 * Attribute names of an outbox item, read by the relay from the stream's `NewImage`. Each item
 * holds `messages`, in publish order: one message for a message without a group, the messages
 * one transaction published to one group for a group's item (whose `seq` counts its commits).
 *
 * @example
 * ```ts
 * import type { DynamoDBRecord } from 'aws-lambda';
 * declare const streamRecord: DynamoDBRecord; // of the outbox table's stream
 * // ---cut---
 * const messages = streamRecord.dynamodb?.NewImage?.[OutboxAttribute.Messages]?.L ?? [];
 * ```
 * @public
 */
export const OutboxAttribute = {
  PartitionKey: 'pk',
  ExpiresAt: 'expiresAt',
  /** The item's format version, a number; absent on items 0.1.0 wrote (version 1). */
  FormatVersion: 'formatVersion',
  Messages: 'messages',
  Sequence: 'seq',
  Origin: 'origin',
  CommittedAt: 'committedAt',
  Destination: 'destination',
  GroupId: 'groupId',
  /**
   * The W3C `traceparent` of the record span that committed the item, when a tracer recorded
   * one; the relay sends it on. Optional: a relay that does not know it ignores it.
   */
  TraceParent: 'traceparent',
} as const;

/**
 * Where a message carries a trace context: the SQS system attribute `AWSTraceHeader` (X-Ray
 * format; outside SQS's ten-attribute quota and size limit) and the `traceparent` message
 * attribute (W3C). A record span links to both; the relay sets `AWSTraceHeader` on SQS, the
 * `TraceHeader` on EventBridge and `traceparent` on SNS.
 *
 * @example
 * ```ts
 * const header = record.attributes[TraceCarrier.AwsTraceHeader];
 * ```
 * @public
 */
export const TraceCarrier = {
  AwsTraceHeader: 'AWSTraceHeader',
  TraceParent: 'traceparent',
} as const;

/**
 * The library's own span attributes, beside OpenTelemetry's messaging ones. None carries a key
 * or a body: the key is in `sqs_inbox.key_hash`, as in the logs.
 *
 * @example
 * ```ts
 * import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
 * declare const span: ReadableSpan; // as a test's InMemorySpanExporter holds it
 * // ---cut---
 * import { expect } from 'vitest';
 * expect(span.attributes[SpanAttribute.Outcome]).toBe(RecordStatus.Processed);
 * ```
 * @public
 */
export const SpanAttribute = {
  Consumer: 'sqs_inbox.consumer',
  KeyHash: 'sqs_inbox.key_hash',
  /** A `RecordStatus` value; for a relayed message `relayed` or `deadLettered`. */
  Outcome: 'sqs_inbox.outcome',
  /** The entry's attempts when a step claimed it, else the record's receive count. */
  Attempts: 'sqs_inbox.attempts',
  /**
   * Steps whose function started in this attempt, and steps replayed from the journal; a step
   * refused before its function (a live lease, a store error) counts in neither.
   */
  StepsRun: 'sqs_inbox.steps.run',
  StepsReplayed: 'sqs_inbox.steps.replayed',
  /** True on a record the batch answered for at its deadline, before it settled. */
  DeadlineReached: 'sqs_inbox.deadline_reached',
  /**
   * A step span's step name, and whether it was replayed from the journal (`true`) or its
   * function ran (`false`); absent on a step refused before its function, whose span carries
   * only its error.
   */
  StepName: 'sqs_inbox.step.name',
  StepReplayed: 'sqs_inbox.step.replayed',
  /** On a relayed message's span: its outbox id (a hash, no content). */
  OutboxMessageId: 'sqs_inbox.outbox.message_id',
} as const;

// The first message of an outbox item in its stream record (a pipe sends it without a template).
const PIPED_MESSAGE_PATH = `dynamodb.NewImage.${OutboxAttribute.Messages}.L[0].M`;

/**
 * Where a relayed message carries its outbox id, the same on every send of it: the SQS and SNS
 * message attribute `outbox.messageId`, on EventBridge the `detail` member `outboxMessageId`,
 * and in what an EventBridge pipe (`OutboxPipe`) sends — the outbox item's DynamoDB stream
 * record as JSON, the item in DynamoDB JSON — at `PipedIdPath`, the message's body text at
 * `PipedBodyPath`. A downstream consumer keys its inbox on it. FIFO destinations also get it as
 * their `MessageDeduplicationId`.
 *
 * @example
 * ```ts
 * const id = record.messageAttributes[OutboxMessageIdField.Attribute]?.stringValue;
 * ```
 * @public
 */
export const OutboxMessageIdField = {
  Attribute: 'outbox.messageId',
  EventMember: 'outboxMessageId',
  /** The outbox id in a piped stream record: the first (and only) message of the item's image. */
  PipedIdPath: `$.${PIPED_MESSAGE_PATH}.id.S`,
  /** The message's body, as text, in a piped stream record. */
  PipedBodyPath: `$.${PIPED_MESSAGE_PATH}.body.S`,
  /** The message's group in a piped stream record (absent without one). */
  PipedGroupIdPath: `$.${PIPED_MESSAGE_PATH}.groupId.S`,
  /**
   * @deprecated The body `OutboxPipe` sent through its input template before it sent the stream
   * record: `{ "outboxMessageId": <id>, "body": <the body, as text> }`. The `outbox` source
   * still reads it, for messages already in queues and dead-letter queues, for one release.
   */
  PipedBodyMember: 'body',
} as const;

// What every destination of a kind accepts at its default settings, in bytes, counted as that
// service counts a message (see `destinationBytes` in src/outbox/messageSize.ts):
// - SQS `SendMessage`: the body plus each attribute's name, data type and value, against the
//   queue's `MaximumMessageSize` (1,024 to 1,048,576; the API reference now gives 1,048,576 as
//   the default, queues created earlier kept 262,144, and a queue may be set lower).
//   https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessage.html
//   and https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_MessageAttributeValue.html
// - SNS `Publish`: the same count, against the topic's `MaximumMessageSize`, 262,144 unless
//   raised (up to 1 MiB). https://docs.aws.amazon.com/sns/latest/api/API_MessageAttributeValue.html
// - EventBridge `PutEvents`: Source + DetailType + Detail (+ 14 for Time, + Resources). The API
//   reference says "at most 256 KB", the user guide "less than 256KB": the stricter reading.
//   https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-putevent-size.html
const QUEUE_OR_TOPIC_MAX_BYTES = 262_144;
const EVENT_ENTRY_MAX_BYTES = 262_143;

/**
 * Limits of outgoing messages, checked when the handler publishes (`tx.publish`), so that what
 * commits is what its destination takes. `maxBytesByKind`: the most a message may take as its
 * destination counts it — an SQS queue or SNS topic the body plus each attribute's name, data
 * type (`String`) and value, the outbox id's attribute included (262,144: what every queue and
 * topic accepts at its default settings; the relay cannot read a destination's own setting
 * when the handler publishes); an event bus `source` + `detailType` + `detail` (the body with
 * the outbox id's member) + 14 bytes for the time EventBridge stamps (262,143: less than 256
 * KiB). `messageBytes` is the queue and topic figure, also what a pipe's message may take: the
 * item's stream record, its image counted exactly and its other fields bounded by
 * `pipedRecordEnvelopeBytes` plus the outbox table's name (see `pipedRecordBytes`).
 * At most 9 attributes of your own (SQS carries 10 and the outbox id is one), names of 1-128
 * characters from `A-Z a-z 0-9 . _ : -`.
 *
 * @example
 * ```ts
 * declare const body: string;
 * declare function storeInS3(value: string): Promise<string>;
 * // ---cut---
 * if (Buffer.byteLength(body) > OUTBOX_LIMITS.maxBytesByKind.eventbridge - 1024) await storeInS3(body);
 * ```
 * @public
 */
export const OUTBOX_LIMITS = {
  messageBytes: QUEUE_OR_TOPIC_MAX_BYTES,
  maxBytesByKind: {
    [DestinationKind.SqsQueue]: QUEUE_OR_TOPIC_MAX_BYTES,
    [DestinationKind.SqsFifoQueue]: QUEUE_OR_TOPIC_MAX_BYTES,
    [DestinationKind.SnsTopic]: QUEUE_OR_TOPIC_MAX_BYTES,
    [DestinationKind.SnsFifoTopic]: QUEUE_OR_TOPIC_MAX_BYTES,
    [DestinationKind.EventBus]: EVENT_ENTRY_MAX_BYTES,
  },
  /** Bytes EventBridge counts for an entry's `Time`; the relay sends none, EventBridge stamps one. */
  eventTimeBytes: 14,
  /**
   * What a piped stream record may take besides the item's image and keys and the table's name
   * (in its stream ARN): a bound, not a count (see `pipedRecordBytes`).
   */
  pipedRecordEnvelopeBytes: 1024,
  attributes: 9,
  namePattern: /^[A-Za-z0-9._:-]{1,128}$/,
} as const;

/**
 * Default lifetime of an outbox item: 7 days. The stream keeps each record 24 hours whatever
 * the retention; the item is what stays for the runbook afterwards (a message's last state).
 *
 * @example
 * ```ts
 * new DynamoDBInboxStore({ tableName: 'inbox', outbox: { tableName: 'outbox', retentionSeconds: 14 * 86_400 } });
 * ```
 */
export const DEFAULT_OUTBOX_RETENTION_SECONDS = 7 * SECONDS_PER_DAY;

/**
 * Bounds accepted for the outbox's `retentionSeconds`: at least two days. The stream keeps each
 * record 24 hours; past them, the runbook finds a given-up batch's messages in the outbox table
 * (by `committedAt`), so an item must outlive its stream record by a day at least.
 *
 * @example
 * ```ts
 * const ok = value >= OUTBOX_RETENTION_RANGE.min && value <= OUTBOX_RETENTION_RANGE.max;
 * ```
 */
export const OUTBOX_RETENTION_RANGE = {
  min: 2 * SECONDS_PER_DAY,
  max: 366 * SECONDS_PER_DAY,
} as const;
