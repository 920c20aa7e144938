import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { MessageKey } from './MessageKey.js';
import type { OutboxRelayProps } from './OutboxRelayProps.js';
import type { QueueSource } from './QueueSource.js';

/**
 * A business table the consumer writes through the inbox transaction, and what it may do there.
 *
 * @example
 * ```ts
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
   * @default ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem']
   */
  readonly actions?: readonly string[];
}

/**
 * Properties of {@link InboxConsumer}. Durations are `Duration`s; each prop says its range,
 * default and the AWS documentation it follows.
 *
 * @example
 * ```ts
 * const props: InboxConsumerProps = { consumerName: 'ledger', entry: 'src/ledger.ts', fifo: true };
 * ```
 * @public
 */
export interface InboxConsumerProps {
  /**
   * Name of the consumer: the inbox dedup scope (`INBOX_CONSUMER`), the metrics `service`
   * dimension and the prefix of the alarms. 1-128 characters from `A-Z a-z 0-9 . _ : -`, the
   * library's own rule (`CONSUMER_NAME_PATTERN`).
   */
  readonly consumerName: string;

  /**
   * Path of the function's entry file (TypeScript or JavaScript), bundled locally with esbuild.
   * A relative path is resolved from the directory `cdk` runs in (your project's root), like
   * `NodejsFunction`'s own `entry`.
   */
  readonly entry: string;

  /**
   * Exported handler name in `entry`.
   * @default 'handler'
   */
  readonly handler?: string;

  /**
   * Where the queue's messages come from: SNS topics, EventBridge rules or patterns, S3
   * buckets, producers sending directly. Each is wired to the queue with its own queue policy
   * statement (limited by `aws:SourceArn`), and the function's library reads its messages
   * accordingly (`INBOX_SOURCES`): the handler gets the payload, and SNS, EventBridge and S3
   * ids key the inbox unless `messageKey` or the handler's `key` says otherwise.
   * @default [QueueSource.direct()]
   */
  readonly sources?: readonly QueueSource[];

  /**
   * Where the dedup key comes from, when the sources' own ids are not to be used or there are
   * none: SNS raw delivery requires it. `MessageKey.attribute(name)` and `MessageKey.field(path)`
   * reach the function as `INBOX_KEY`; `MessageKey.inHandler()` says the function passes `key`.
   * @default the sources' ids; the handler's `key` for direct producers
   */
  readonly messageKey?: MessageKey;

  /**
   * A FIFO queue (name ends in `.fifo`, order per message group) instead of a standard one.
   * @default false
   * @see https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/FIFO-queues.html
   */
  readonly fifo?: boolean;

  /**
   * FIFO only: SQS derives the deduplication id from the body's SHA-256.
   * @default false
   * @see https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/FIFO-queues-exactly-once-processing.html
   */
  readonly contentBasedDeduplication?: boolean;

  /**
   * Receives before SQS moves a message to the DLQ. At least 2, so one crash is retried.
   * @default 5
   * @see https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html
   */
  readonly maxReceiveCount?: number;

  /**
   * How long the source queue keeps a message: 60 seconds to 14 days. It is the redelivery
   * horizon, so the inbox TTL must be at least this long.
   * @default Duration.days(4)
   * @see https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SetQueueAttributes.html
   */
  readonly retentionPeriod?: Duration;

  /**
   * How long the DLQ keeps a message; longer than `retentionPeriod` (for a standard queue the
   * DLQ clock starts at the original enqueue), at most 14 days.
   * @default Duration.days(14)
   * @see https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html
   */
  readonly deadLetterRetentionPeriod?: Duration;

  /**
   * Function timeout, 1 second to 15 minutes.
   * @default Duration.seconds(30)
   * @see https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html
   */
  readonly functionTimeout?: Duration;

  /**
   * Queue visibility timeout; at least 6× the function timeout, as AWS recommends for Lambda.
   * @default 6 × functionTimeout
   * @see https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html
   */
  readonly visibilityTimeout?: Duration;

  /**
   * Function memory in MB, 128 to 10,240.
   * @default 512
   * @see https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html
   */
  readonly memorySize?: number;

  /**
   * Lambda runtime of the function. Node.js 24 is the newest LTS that Lambda runs, supported
   * the longest; the library itself needs Node.js 20 or later.
   * @default Runtime.NODEJS_24_X
   * @see https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtimes.html
   */
  readonly runtime?: Runtime;

  /**
   * Instruction set of the function. Graviton (ARM64) costs about 20 % less per GB-second than
   * x86_64; choose `X86_64` if the handler bundles native modules built for x86.
   * @default Architecture.ARM_64
   * @see https://docs.aws.amazon.com/lambda/latest/dg/foundation-arch.html
   */
  readonly architecture?: Architecture;

  /**
   * esbuild settings, merged over the construct's: ESM output with a `createRequire` banner (so
   * bundled CommonJS code can still `require` Node built-ins), minified, source maps, a target
   * matching `runtime`, and the AWS SDK bundled (`externalModules: []`) so the function runs the
   * SDK version your lock file pins. Set `externalModules: ['@aws-sdk/*']` to use the SDK of the
   * Lambda runtime instead; the README compares both.
   * @default the settings above
   * @see https://docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.aws_lambda_nodejs.BundlingOptions.html
   */
  readonly bundling?: BundlingOptions;

  /**
   * Extra environment variables of the function. Names starting with `INBOX_` and the ones the
   * construct sets (`POWERTOOLS_SERVICE_NAME`, `POWERTOOLS_METRICS_NAMESPACE`, `NODE_OPTIONS`)
   * are refused.
   * @default none
   */
  readonly environment?: Readonly<Record<string, string>>;

  /**
   * An existing inbox table (partition key `pk` string, TTL on `expiresAt`). Several consumers
   * may share one. When absent, the construct creates one.
   */
  readonly inboxTable?: ITable;

  /**
   * What happens to a created inbox table when the stack is deleted.
   * @default RemovalPolicy.RETAIN
   */
  readonly inboxTableRemovalPolicy?: RemovalPolicy;

  /**
   * Lifetime of an inbox entry (`INBOX_TTL_SECONDS`): at least the time a message can still come
   * back with one DLQ redrive, `retentionPeriod + deadLetterRetentionPeriod + retentionPeriod`
   * (a message the library dead-letters, like any in a FIFO DLQ, starts the DLQ's retention
   * afresh; a redrive restarts it), and at most 366 days (the library's `ttlSeconds` limit). A
   * key redriven later than that horizon is applied again.
   * @default that horizon plus a day: 23 days with the default retention periods
   * @see https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TTL.html
   */
  readonly inboxTtl?: Duration;

  /**
   * Records per invocation: 1 to 10 for FIFO, 1 to 10,000 for standard (above 10 needs a
   * `maxBatchingWindow` of at least 1 second).
   * @default 10
   * @see https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-parameters.html
   */
  readonly batchSize?: number;

  /**
   * How long Lambda gathers records before invoking, 0 to 300 seconds; standard queues only.
   * @default none
   */
  readonly maxBatchingWindow?: Duration;

  /**
   * Most concurrent invocations the event source mapping starts, 2 to 1,000.
   * @default no limit beyond the account's
   * @see https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html
   */
  readonly maxConcurrency?: number;

  /**
   * Business tables the consumer writes through the inbox transaction, by logical name
   * (`[A-Za-z][A-Za-z0-9_]{0,63}`). Each name reaches the function as the variable
   * `INBOX_BUSINESS_TABLE_<name>`, read back with `inboxConfigFromEnvironment().table(name)`.
   * A table alone gets the default actions; `{ table, actions }` chooses them.
   * @default none
   */
  readonly businessTables?: Readonly<Record<string, ITable | BusinessTableGrant>>;

  /**
   * Age of the oldest message above which the queue-age alarm fires.
   * @default Duration.minutes(15)
   */
  readonly queueAgeAlarmThreshold?: Duration;

  /**
   * Where alarm notifications go.
   * @default none (alarms only change state)
   */
  readonly alarmTopic?: ITopic;

  /**
   * CloudWatch namespace of the metrics the function emits (Powertools `POWERTOOLS_METRICS_NAMESPACE`).
   * @default 'SqsInbox'
   */
  readonly metricsNamespace?: string;

  /**
   * A transactional outbox for the handler's `tx.publish`: the construct creates an
   * {@link OutboxRelay} (table, relay function and mapping, dead-letter queue, alarms), lets the
   * function write the table, and gives it `INBOX_OUTBOX_TABLE_NAME`, the retention and each
   * destination as `INBOX_DESTINATION_<name>` (`inbox.destination(name)`). Its alarm topic,
   * runtime, architecture and removal policy default to the consumer's.
   * @default no outbox (`tx.publish` is refused)
   */
  readonly outbox?: InboxOutboxProps;
}

/**
 * The `outbox` of an {@link InboxConsumerProps}: an {@link OutboxRelayProps} named after the
 * consumer.
 *
 * @example
 * ```ts
 * const outbox: InboxOutboxProps = { destinations: { credits: creditsQueue }, retryAttempts: 5 };
 * ```
 * @public
 */
export type InboxOutboxProps = Omit<OutboxRelayProps, 'name'>;
