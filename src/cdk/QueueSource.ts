import type { Duration } from 'aws-cdk-lib';
import { type EventPattern, type IEventBus, Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  BucketNotificationDestinationType,
  EventType,
  type IBucket,
  type NotificationKeyFilter,
} from 'aws-cdk-lib/aws-s3';
import type { FilterOrPolicy, ITopic, SubscriptionFilter } from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { MessageSource } from '../sources/MessageSource.js';
import { checkEventBridgeSource } from './checkEventBridgeSource.js';
import { InboxValidationError } from './InboxValidationError.js';

/**
 * What a {@link QueueSource} is wired with: the consumer's queue and the queue that keeps what
 * an upstream gave up delivering (created on first use).
 *
 * @example
 * ```ts
 * import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
 * class SchedulerSource extends QueueSource {
 *   readonly kind = MessageSource.Sqs;
 *   bind({ queue }: QueueSourceContext): void {
 *     queue.grantSendMessages(new ServicePrincipal('scheduler.amazonaws.com'));
 *   }
 * }
 * ```
 * @public
 */
export interface QueueSourceContext {
  /** The `InboxConsumer`: the scope of what a source creates, and what its errors name. */
  readonly scope: Construct;
  /** The consumer's name (its `consumer` prop). */
  readonly consumer: string;
  /** The consumer's queue: where the source delivers. */
  readonly queue: Queue;
  /** Whether `queue` is a FIFO queue. */
  readonly fifo: boolean;
  /** Whether `queue` deduplicates by content (FIFO only; `false` on a standard queue). */
  readonly contentBasedDeduplication: boolean;
  /** The consumer's DLQ: an SNS subscription's dead-letter queue (same type as the topic). */
  readonly deadLetterQueue: Queue;
  /**
   * The queue for what an upstream gave up delivering (an EventBridge target's DLQ), made on
   * the first call: `deadLetterQueue` on a standard consumer, a standard queue of its own on a
   * FIFO one (EventBridge's DLQs are standard).
   */
  readonly deliveryDeadLetterQueue: () => Queue;
}

/**
 * Options of {@link QueueSource.snsTopic}.
 *
 * @example
 * ```ts
 * import { SubscriptionFilter } from 'aws-cdk-lib/aws-sns';
 * const options: SnsTopicSourceOptions = { filterPolicy: { type: SubscriptionFilter.stringFilter({ allowlist: ['captured'] }) } };
 * ```
 * @public
 */
export interface SnsTopicSourceOptions {
  /**
   * SNS strips its envelope, and with it the SNS `MessageId`: the consumer then needs a
   * construct `key` (or a `key` in the handler, declared with `MessageKey.inHandler()`).
   * @defaultValue `false`
   * @see https://docs.aws.amazon.com/sns/latest/dg/sns-large-payload-raw-message-delivery.html
   */
  readonly rawMessageDelivery?: boolean;
  /** Which publishes reach the queue, by message attributes. @defaultValue all */
  readonly filterPolicy?: Readonly<Record<string, SubscriptionFilter>>;
  /** Which publishes reach the queue, by the message body. @defaultValue all */
  readonly filterPolicyWithMessageBody?: Readonly<Record<string, FilterOrPolicy>>;
}

/**
 * Options of {@link QueueSource.eventBridgeRule} and {@link QueueSource.eventPattern}.
 *
 * @example
 * ```ts
 * import { Duration } from 'aws-cdk-lib';
 * const options: EventBridgeSourceOptions = { retryAttempts: 20, maxEventAge: Duration.hours(6) };
 * ```
 * @public
 */
export interface EventBridgeSourceOptions {
  /**
   * Attempts of EventBridge to deliver an event to the queue, 0 to 185 (checked at synth);
   * after the last one the event goes to the consumer's `deliveryDeadLetterQueue`.
   * @defaultValue `185`
   * @see https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_RetryPolicy.html
   */
  readonly retryAttempts?: number;
  /**
   * How long EventBridge keeps retrying, 60 seconds to 24 hours (checked at synth).
   * @defaultValue `Duration.hours(24)`
   */
  readonly maxEventAge?: Duration;
  /**
   * The message group of every event of the rule: required on a FIFO queue (which also needs
   * `contentBasedDeduplication`, since EventBridge sends no deduplication id); on a standard
   * queue it sets the fair-queue group.
   * @defaultValue none: refused on a FIFO queue
   */
  readonly messageGroupId?: string;
}

/**
 * Options of {@link QueueSource.eventPattern}.
 *
 * @example
 * ```ts
 * import type { IEventBus } from 'aws-cdk-lib/aws-events';
 * declare const bus: IEventBus;
 * // ---cut---
 * const options: EventPatternSourceOptions = { eventBus: bus, description: 'orders to stock' };
 * ```
 * @public
 */
export interface EventPatternSourceOptions extends EventBridgeSourceOptions {
  /** The bus the rule listens on. @defaultValue the account's default bus */
  readonly eventBus?: IEventBus;
  /** The rule's description. @defaultValue the consumer and its pattern's purpose */
  readonly description?: string;
}

/**
 * Options of {@link QueueSource.s3Bucket}.
 *
 * @example
 * ```ts
 * import { EventType } from 'aws-cdk-lib/aws-s3';
 * const options: S3BucketSourceOptions = { events: [EventType.OBJECT_CREATED], filters: [{ prefix: 'in/' }] };
 * ```
 * @public
 */
export interface S3BucketSourceOptions {
  /** The event types that reach the queue. @defaultValue `[EventType.OBJECT_CREATED]` */
  readonly events?: readonly EventType[];
  /** Object key prefix and suffix filters. @defaultValue every object */
  readonly filters?: readonly NotificationKeyFilter[];
}

/**
 * Where an `InboxConsumer`'s messages come from: one declaration that wires the upstream to the
 * queue (subscription, rule target, bucket notification), adds one queue policy statement for
 * it limited by `aws:SourceArn`, and tells the function's library how to read its messages
 * (`INBOX_SOURCES`). Build one with the static methods.
 *
 * @example
 * ```ts
 * import type { IEventBus } from 'aws-cdk-lib/aws-events';
 * import type { ITopic } from 'aws-cdk-lib/aws-sns';
 * declare const payments: ITopic;
 * declare const eventBus: IEventBus;
 * // ---cut---
 * new InboxConsumer(stack, 'Ledger', { consumer: 'ledger', function: { entry: 'src/ledger.ts' },
 *   sources: [QueueSource.snsTopic(payments), QueueSource.eventPattern({ source: ['shop.orders'] }, { eventBus })] });
 * ```
 * @public
 */
export abstract class QueueSource {
  /**
   * Producers that call `SendMessage` on the queue themselves (grant them with
   * `consumer.queue.grantSendMessages(producer)`). What a consumer without `sources` has.
   */
  static direct(): QueueSource {
    return new DirectSource();
  }

  /** An SNS topic the queue subscribes to. A FIFO queue needs a FIFO topic. */
  static snsTopic(topic: ITopic, options: SnsTopicSourceOptions = {}): QueueSource {
    return new SnsTopicSource(topic, options);
  }

  /** An existing EventBridge rule that gets the queue as a target, with retries and a DLQ. */
  static eventBridgeRule(rule: Rule, options: EventBridgeSourceOptions = {}): QueueSource {
    return new EventBridgeSource((context) => {
      checkEventBridge(context, options);
      return rule;
    }, options);
  }

  /** A new EventBridge rule with this pattern (on `eventBus`) whose target is the queue. */
  static eventPattern(pattern: EventPattern, options: EventPatternSourceOptions = {}): QueueSource {
    return new EventBridgeSource((context, index) => {
      checkEventBridge(context, options);
      return new Rule(context.scope, `EventRule${index}`, {
        eventPattern: pattern,
        eventBus: options.eventBus,
        description: options.description ?? `sqs-inbox consumer ${context.consumer}`,
      });
    }, options);
  }

  /**
   * Messages an outbox relay sends: the queue is a destination of another consumer's `outbox`
   * (whose relay is granted the send there), or an SNS topic delivers raw to it, or an
   * `OutboxPipe` sends its items' stream records to it. Each message is keyed by its outbox id
   * (`outbox.messageId`, or the id in the record), the same on every send.
   */
  static outbox(): QueueSource {
    return new OutboxSource();
  }

  /** S3 event notifications of a bucket. S3 cannot notify a FIFO queue. */
  static s3Bucket(bucket: IBucket, options: S3BucketSourceOptions = {}): QueueSource {
    return new S3BucketSource(bucket, options);
  }

  /** How the function's library reads this source's messages. */
  abstract readonly kind: MessageSource;

  /** Wires the source to the queue; called once by the `InboxConsumer`. */
  abstract bind(context: QueueSourceContext, index: number): void;
}

class DirectSource extends QueueSource {
  readonly kind = MessageSource.Sqs;
  bind(): void {}
}

/** The publishing side wires it: its `OutboxRelay` is granted the send to this queue. */
class OutboxSource extends QueueSource {
  readonly kind = MessageSource.Outbox;
  bind(): void {}
}

class SnsTopicSource extends QueueSource {
  readonly kind: MessageSource;
  constructor(
    private readonly topic: ITopic,
    private readonly options: SnsTopicSourceOptions,
  ) {
    super();
    this.kind = options.rawMessageDelivery ? MessageSource.SnsRaw : MessageSource.Sns;
  }

  bind(context: QueueSourceContext): void {
    if (context.fifo && !this.topic.fifo) {
      throw new InboxValidationError(
        context.scope,
        'a FIFO queue can subscribe to FIFO topics only, ' +
          `and ${this.topic.node.path} is a standard topic. Subscribe a standard consumer (queue.fifo: false), or publish to a FIFO topic.`,
      );
    }
    this.topic.addSubscription(
      new SqsSubscription(context.queue, {
        rawMessageDelivery: this.options.rawMessageDelivery,
        // What SNS cannot deliver (a policy or KMS mistake) is kept, not dropped. SNS wants the
        // DLQ's type to match the topic's, which the consumer's DLQ does but on a standard
        // queue subscribed to a FIFO topic.
        deadLetterQueue: context.fifo === this.topic.fifo ? context.deadLetterQueue : undefined,
        filterPolicy: this.options.filterPolicy ? { ...this.options.filterPolicy } : undefined,
        filterPolicyWithMessageBody: this.options.filterPolicyWithMessageBody
          ? { ...this.options.filterPolicyWithMessageBody }
          : undefined,
      }),
    );
  }
}

class EventBridgeSource extends QueueSource {
  readonly kind = MessageSource.EventBridge;
  constructor(
    private readonly ruleFor: (context: QueueSourceContext, index: number) => Rule,
    private readonly options: EventBridgeSourceOptions,
  ) {
    super();
  }

  bind(context: QueueSourceContext, index: number): void {
    this.ruleFor(context, index).addTarget(
      new SqsQueue(context.queue, {
        deadLetterQueue: context.deliveryDeadLetterQueue(),
        retryAttempts: this.options.retryAttempts,
        maxEventAge: this.options.maxEventAge,
        messageGroupId: this.options.messageGroupId,
      }),
    );
  }
}

function checkEventBridge(context: QueueSourceContext, options: EventBridgeSourceOptions): void {
  checkEventBridgeSource({
    scope: context.scope,
    fifo: context.fifo,
    contentBasedDeduplication: context.contentBasedDeduplication,
    ...options,
  });
}

class S3BucketSource extends QueueSource {
  readonly kind = MessageSource.S3;
  constructor(
    private readonly bucket: IBucket,
    private readonly options: S3BucketSourceOptions,
  ) {
    super();
  }

  bind(context: QueueSourceContext): void {
    if (context.fifo) {
      throw new InboxValidationError(
        context.scope,
        `S3 cannot send event notifications to a FIFO queue; declare the bucket on a standard consumer.`,
      );
    }
    const queue = context.queue;
    // One statement per bucket: its ARN holds no account, so the account is named too.
    const policy = queue.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('s3.amazonaws.com')],
        actions: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
        resources: [queue.queueArn],
        conditions: {
          ArnLike: { 'aws:SourceArn': this.bucket.bucketArn },
          StringEquals: { 'aws:SourceAccount': this.bucket.env.account },
        },
      }),
    );
    const destination = {
      bind: () => ({
        arn: queue.queueArn,
        type: BucketNotificationDestinationType.QUEUE,
        dependencies: policy.policyDependable ? [policy.policyDependable] : [],
      }),
    };
    for (const event of this.options.events ?? [EventType.OBJECT_CREATED]) {
      this.bucket.addEventNotification(event, destination, ...(this.options.filters ?? []));
    }
  }
}
