import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import type { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';

/**
 * Where an outbox may send: a queue (standard or FIFO), a topic (standard or FIFO), an event bus.
 *
 * @example
 * ```ts
 * const credits: OutboxDestination = creditsQueue;
 * ```
 * @public
 */
export type OutboxDestination = IQueue | ITopic | IEventBus;

/**
 * Properties of {@link OutboxRelay} (and of `InboxConsumer`'s `outbox`). The relay's mapping
 * settings follow Lambda's DynamoDB event source mapping; each says its range and default.
 *
 * @example
 * ```ts
 * const props: OutboxRelayProps = { name: 'ledger', destinations: { credits: creditsQueue } };
 * ```
 * @public
 */
export interface OutboxRelayProps {
  /** Names the relay in alarm descriptions and the function's description (the consumer's name). */
  readonly name: string;
  /**
   * Where the handler may publish, by logical name (letters, digits, `_`): the consumer gets each
   * address as `INBOX_DESTINATION_<name>` (`inbox.destination(name)`), and the relay exactly the
   * right to send there — `sqs:SendMessage`, `sns:Publish`, `events:PutEvents` on that resource.
   * Each is an SQS queue or an SNS topic (standard or FIFO) or an EventBridge bus.
   */
  readonly destinations: Readonly<Record<string, OutboxDestination>>;
  /**
   * How long an outbox item lives (TTL). The stream keeps records 24 hours whatever this is.
   * 2 to 366 days (a day past the stream's 24 hours at least).
   * @defaultValue `Duration.days(7)`
   */
  readonly retention?: Duration;
  /**
   * Stream records per relay invocation, 1 to 10,000.
   * @defaultValue `100`
   */
  readonly batchSize?: number;
  /**
   * Retries of a failing batch (after bisecting it) before its records' metadata go to the
   * dead-letter queue, 0 to 10,000 (never Lambda's infinite).
   * @defaultValue `10`
   */
  readonly retryAttempts?: number;
  /**
   * Records older than this are given up to the dead-letter queue (metadata only), 1 minute to
   * 12 hours (never Lambda's infinite), a literal: a token is refused, since synth could not
   * check what it resolves to. The runbook's redrive reads a given-up batch back from
   * the stream, which keeps records 24 hours: at 12 hours at least 12 are left to redrive it.
   * @defaultValue `Duration.hours(6)`
   */
  readonly maxRecordAge?: Duration;
  /**
   * Batches per shard relayed at once, 1 to 10; Lambda keeps each item's order at any value.
   * @defaultValue `1`
   */
  readonly parallelizationFactor?: number;
  /**
   * The iterator-age alarm fires when the relay is this far behind the stream.
   * @defaultValue `Duration.minutes(5)`
   */
  readonly iteratorAgeAlarmThreshold?: Duration;
  /**
   * What happens to the outbox table when the stack is deleted.
   * @defaultValue `RemovalPolicy.RETAIN`
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Where the alarms notify.
   * @defaultValue none (alarms only change state)
   */
  readonly alarmTopic?: ITopic;
  /**
   * CloudWatch namespace of the relay's metrics (`OutboxMessagesRelayed`, `OutboxDeadLettered`,
   * `OutboxRecordsFailed`, with the `service` dimension `name`): the relay's
   * `POWERTOOLS_METRICS_NAMESPACE`, under which the library's relay writes them. An
   * `InboxConsumer`'s outbox uses the consumer's `monitoring.metricsNamespace`.
   * @defaultValue `'SqsInbox'`
   */
  readonly metricsNamespace?: string;
  /**
   * The relay function's Lambda runtime.
   * @defaultValue `Runtime.NODEJS_24_X`
   */
  readonly runtime?: Runtime;
  /**
   * The relay function's instruction set.
   * @defaultValue `Architecture.ARM_64`
   */
  readonly architecture?: Architecture;
  /**
   * esbuild settings over the construct's (ESM, minified, SDK bundled) for a `relayEntry` of
   * your own; refused without one, since the library's relay is not bundled at synth.
   * @defaultValue the construct's (ESM, minified, SDK bundled)
   */
  readonly bundling?: BundlingOptions;
  /**
   * A relay of your own: its entry file, bundled with esbuild at synth like a consumer's
   * function (its handler exported as `handler`).
   * @defaultValue the library's relay, as the package ships it pre-built
   * (`dist/relay-function`, the AWS SDK bundled in), deployed as it is
   */
  readonly relayEntry?: string;
}
