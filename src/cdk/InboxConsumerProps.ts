import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { InboxFunctionProps } from './InboxFunctionProps.js';
import type { InboxRetryProps } from './InboxRetryProps.js';
import type { MessageKey } from './MessageKey.js';
import type { OutboxRelayProps } from './OutboxRelayProps.js';
import type { QueueSource } from './QueueSource.js';

/**
 * A business table the consumer writes through the inbox transaction, and what it may do there.
 *
 * @example
 * ```ts
 * import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
 * declare const stockTable: ITable;
 * // ---cut---
 * const stock: BusinessTableGrant = { table: stockTable, actions: ['dynamodb:UpdateItem'] };
 * ```
 * @public
 */
export interface BusinessTableGrant {
  /** The table. Its name reaches the function under the logical name it is given in `businessTables`. */
  readonly table: ITable;
  /**
   * Item-level actions on the table. Transactional writes need the per-item action
   * (`dynamodb:UpdateItem` for a transactional Update, and so on).
   * `dynamodb:DescribeTable` is always added: the library reads the key schema with it.
   * @defaultValue `['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem']`
   */
  readonly actions?: readonly string[];
}

/**
 * Properties of {@link InboxConsumer}. At the top, what every consumer sets: who it is, how a
 * message is keyed and how long a key is remembered, where messages come from, the function and
 * the tables it writes. In groups, what a reader looks for later: `queue`, `deadLetter`,
 * `eventSource`, `monitoring` and `retry`. Durations are `Duration`s; each prop says its range, default
 * and the AWS documentation it follows. The names are the library's where they mean the same
 * thing (`consumer`, `key`, `sources`, `deadLetter.maxReceiveCount`; `ttl` is `ttlSeconds`).
 *
 * @example
 * ```ts
 * const props: InboxConsumerProps = {
 *   consumer: 'ledger', function: { entry: 'src/ledger.ts' }, queue: { fifo: true },
 * };
 * ```
 * @public
 */
export interface InboxConsumerProps {
  /**
   * Name of the consumer: the inbox dedup scope (`INBOX_CONSUMER`, the library's `consumer`),
   * the metrics `service` dimension and the prefix of the alarms. 1-128 characters from
   * `A-Z a-z 0-9 . _ : -`, the library's own rule (`CONSUMER_NAME_PATTERN`).
   */
  readonly consumer: string;

  /**
   * Where the dedup key comes from, when the sources' own ids are not to be used or there are
   * none: SNS raw delivery requires it. `MessageKey.attribute(name)` and `MessageKey.field(path)`
   * reach the function as `INBOX_KEY`; `MessageKey.inHandler()` says the function passes the
   * library's `key`.
   * @defaultValue the sources' ids; the handler's `key` for direct producers
   */
  readonly key?: MessageKey;

  /**
   * Lifetime of an inbox entry (`INBOX_TTL_SECONDS`, the library's `ttlSeconds`): at least the
   * time a message can still come back with one DLQ redrive,
   * `queue.retentionPeriod + deadLetter.retentionPeriod + queue.retentionPeriod` (a message the
   * library dead-letters, like any in a FIFO DLQ, starts the DLQ's retention afresh; a redrive
   * restarts it), and at most 366 days. A key redriven later than that horizon is applied again.
   * @defaultValue that horizon plus a day: 23 days with the default retention periods
   * @see https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TTL.html
   */
  readonly ttl?: Duration;

  /**
   * Where the queue's messages come from: SNS topics, EventBridge rules or patterns, S3
   * buckets, producers sending directly. Each is wired to the queue with its own queue policy
   * statement (limited by `aws:SourceArn`), and the function's library reads its messages
   * accordingly (`INBOX_SOURCES`): the handler gets the payload, and SNS, EventBridge and S3
   * ids key the inbox unless `key` or the handler's `key` says otherwise. Made with
   * `QueueSource.snsTopic`, `eventBridgeRule`, `eventPattern`, `s3Bucket`, `outbox` and `direct`.
   * @defaultValue `[QueueSource.direct()]`
   */
  readonly sources?: readonly QueueSource[];

  /**
   * The function the construct creates and bundles. Give it, or `existingFunction`.
   * @defaultValue none: `existingFunction` is given instead
   */
  readonly function?: InboxFunctionProps;

  /**
   * A function of your own (a `NodejsFunction` or any `lambda.Function` running Node.js 20 or
   * later), instead of `function`: the construct adds the environment contract (`INBOX_*`,
   * `POWERTOOLS_SERVICE_NAME`, `POWERTOOLS_METRICS_NAMESPACE`), the grants and the event source
   * mapping to it, and sizes the queue's visibility timeout from its timeout.
   * @defaultValue none: the construct creates the function from `function`
   */
  readonly existingFunction?: LambdaFunction;

  /**
   * Business tables the consumer writes through the inbox transaction, by logical name
   * (`[A-Za-z][A-Za-z0-9_]{0,63}`). Each name reaches the function as the variable
   * `INBOX_BUSINESS_TABLE_<name>`, read back with `inboxConfigFromEnvironment().table(name)`.
   * A table alone gets the default actions; `{ table, actions }` chooses them. A table with a
   * customer-managed KMS key also gets encrypt and decrypt on that key.
   * @defaultValue none
   */
  readonly businessTables?: Readonly<Record<string, ITable | BusinessTableGrant>>;

  /**
   * An existing inbox table (partition key `pk` string, TTL on `expiresAt`). Several consumers
   * may share one.
   * @defaultValue none: the construct creates one (an `InboxTable`)
   */
  readonly inboxTable?: ITable;

  /**
   * What happens to the tables the construct creates (the inbox table, and the outbox's unless
   * `outbox.removalPolicy` says otherwise) when the stack is deleted.
   * @defaultValue `RemovalPolicy.RETAIN`
   */
  readonly removalPolicy?: RemovalPolicy;

  /**
   * A transactional outbox for the handler's `tx.publish`: the construct creates an
   * {@link OutboxRelay} (table, relay function and mapping, dead-letter queue, alarms), lets the
   * function write the table, and gives it `INBOX_OUTBOX_TABLE_NAME`, the retention and each
   * destination as `INBOX_DESTINATION_<name>` (`inbox.destination(name)`). Its alarm topic,
   * runtime, architecture and removal policy default to the consumer's.
   * @defaultValue no outbox (`tx.publish` is refused)
   */
  readonly outbox?: InboxOutboxProps;

  /**
   * The source queue.
   * @defaultValue each member's default
   */
  readonly queue?: InboxQueueProps;

  /**
   * The dead-letter queue and the redrive policy that feeds it.
   * @defaultValue each member's default
   */
  readonly deadLetter?: InboxDeadLetterProps;

  /**
   * The event source mapping from the queue to the function.
   * @defaultValue each member's default
   */
  readonly eventSource?: InboxEventSourceProps;

  /**
   * Alarms, their topic and the metrics namespace.
   * @defaultValue each member's default
   */
  readonly monitoring?: InboxMonitoringProps;

  /**
   * How a failed record comes back (the library's `retry`, `INBOX_RETRY_*`): the function sets
   * its visibility before the batch answers. `{}` re-times only a copy refused by another
   * attempt's live lease; `backoff` adds a jittered delay growing with the receive count to
   * every retryable failure; `false` sets no `INBOX_RETRY_*` variable, so every retry waits
   * `queue.visibilityTimeout`. `sqs:ChangeMessageVisibility` on the queue comes with the event
   * source mapping's grant either way.
   * @defaultValue `{}` (lease-held copies re-timed, 2 s past the lease; no backoff)
   * @see https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-visibility-timeout.html
   */
  readonly retry?: InboxRetryProps | false;
}

/**
 * The `queue` of {@link InboxConsumerProps}: the source queue.
 *
 * @example
 * ```ts
 * import { Duration } from 'aws-cdk-lib';
 * const queue: InboxQueueProps = { fifo: true, retentionPeriod: Duration.days(7) };
 * ```
 * @public
 */
export interface InboxQueueProps {
  /**
   * A FIFO queue (name ends in `.fifo`, order per message group) instead of a standard one.
   * @defaultValue `false`
   * @see https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/FIFO-queues.html
   */
  readonly fifo?: boolean;

  /**
   * FIFO only: SQS derives the deduplication id from the body's SHA-256.
   * @defaultValue `false`
   * @see https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/FIFO-queues-exactly-once-processing.html
   */
  readonly contentBasedDeduplication?: boolean;

  /**
   * How long the queue keeps a message: 60 seconds to 14 days. It is the redelivery horizon, so
   * the inbox `ttl` must be at least this long.
   * @defaultValue `Duration.days(4)`
   * @see https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SetQueueAttributes.html
   */
  readonly retentionPeriod?: Duration;

  /**
   * Visibility timeout; at least 6 × the function's timeout (+ `eventSource.maxBatchingWindow`),
   * as AWS recommends for Lambda, and at most 12 hours (SQS's limit).
   * @defaultValue 6 × the function's timeout (+ `eventSource.maxBatchingWindow`)
   * @see https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html
   */
  readonly visibilityTimeout?: Duration;
}

/**
 * The `deadLetter` of {@link InboxConsumerProps}: the dead-letter queue and its redrive policy.
 *
 * @example
 * ```ts
 * const deadLetter: InboxDeadLetterProps = { maxReceiveCount: 10 };
 * ```
 * @public
 */
export interface InboxDeadLetterProps {
  /**
   * Receives before SQS moves a message to the DLQ (the library's `deadLetter.maxReceiveCount`,
   * `INBOX_MAX_RECEIVE_COUNT`), an integer from 2 (so one crash is retried) to 1,000.
   * @defaultValue `5`
   * @see https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html
   */
  readonly maxReceiveCount?: number;

  /**
   * How long the DLQ keeps a message; longer than `queue.retentionPeriod` (for a standard queue
   * the DLQ clock starts at the original enqueue), at most 14 days.
   * @defaultValue `Duration.days(14)`
   * @see https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html
   */
  readonly retentionPeriod?: Duration;
}

/**
 * The `eventSource` of {@link InboxConsumerProps}: the event source mapping.
 *
 * @example
 * ```ts
 * import { Duration } from 'aws-cdk-lib';
 * const eventSource: InboxEventSourceProps = { batchSize: 100, maxBatchingWindow: Duration.seconds(1) };
 * ```
 * @public
 */
export interface InboxEventSourceProps {
  /**
   * Records per invocation: 1 to 10 for FIFO, 1 to 10,000 for standard (above 10 needs a
   * `maxBatchingWindow` of at least 1 second).
   * @defaultValue `10`
   * @see https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-parameters.html
   */
  readonly batchSize?: number;

  /**
   * How long Lambda gathers records before invoking, 0 to 300 seconds; standard queues only.
   * @defaultValue none
   */
  readonly maxBatchingWindow?: Duration;

  /**
   * Most concurrent invocations the event source mapping starts, 2 to 1,000.
   * @defaultValue no limit beyond the account's
   * @see https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html
   */
  readonly maxConcurrency?: number;
}

/**
 * The `monitoring` of {@link InboxConsumerProps}.
 *
 * @example
 * ```ts
 * import { Duration } from 'aws-cdk-lib';
 * const monitoring: InboxMonitoringProps = { alarmTopic: pager, queueAgeAlarmThreshold: Duration.minutes(5) };
 * ```
 * @public
 */
export interface InboxMonitoringProps {
  /**
   * Where alarm notifications go.
   * @defaultValue none (alarms only change state)
   */
  readonly alarmTopic?: ITopic;

  /**
   * Age of the oldest message above which the queue-age alarm fires.
   * @defaultValue `Duration.minutes(15)`
   */
  readonly queueAgeAlarmThreshold?: Duration;

  /**
   * CloudWatch namespace of the metrics the function emits (Powertools `POWERTOOLS_METRICS_NAMESPACE`).
   * @defaultValue `'SqsInbox'`
   */
  readonly metricsNamespace?: string;
}

/**
 * The `outbox` of an {@link InboxConsumerProps}: an {@link OutboxRelayProps} named after the
 * consumer, its metrics under the consumer's namespace.
 *
 * @example
 * ```ts
 * const outbox: InboxOutboxProps = { destinations: { credits: creditsQueue }, retryAttempts: 5 };
 * ```
 * @public
 */
export type InboxOutboxProps = Omit<OutboxRelayProps, 'name' | 'metricsNamespace'>;
