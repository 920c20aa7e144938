import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { ITopic } from 'aws-cdk-lib/aws-sns';

/** A business table the consumer writes through the inbox transaction, and what it may do there. */
export interface BusinessTableGrant {
  /** The table. Its name reaches the function as the environment variable `envName`. */
  readonly table: ITable;
  /** Environment variable that carries the table name, e.g. `ACCOUNTS_TABLE_NAME`. */
  readonly envName: string;
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
 */
export interface InboxConsumerProps {
  /**
   * Name of the consumer: the inbox dedup scope (`INBOX_CONSUMER`), the metrics `service`
   * dimension and the prefix of the alarms. `[A-Za-z0-9._:-]{1,64}`.
   */
  readonly consumerName: string;

  /** Path of the function's entry file (TypeScript or JavaScript), bundled locally with esbuild. */
  readonly entry: string;

  /**
   * Exported handler name in `entry`.
   * @default 'handler'
   */
  readonly handler?: string;

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

  /** Extra environment variables of the function. */
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
   * Lifetime of an inbox entry (`INBOX_TTL_SECONDS`); at least `retentionPeriod`.
   * @default Duration.days(15)
   * @see https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TTL.html
   */
  readonly inboxTtl?: Duration;

  /**
   * Records per invocation: 1 to 10 for FIFO, 1 to 10,000 for standard (above 10 needs
   * `maxBatchingWindow`).
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

  /** Business tables the consumer writes through the inbox transaction. */
  readonly businessTables?: readonly BusinessTableGrant[];

  /**
   * Age of the oldest message above which the queue-age alarm fires.
   * @default Duration.minutes(15)
   */
  readonly queueAgeAlarmThreshold?: Duration;

  /** Where alarm notifications go. @default none (alarms only change state) */
  readonly alarmTopic?: ITopic;

  /**
   * CloudWatch namespace of the metrics the function emits (Powertools `POWERTOOLS_METRICS_NAMESPACE`).
   * @default 'SqsInbox'
   */
  readonly metricsNamespace?: string;
}
