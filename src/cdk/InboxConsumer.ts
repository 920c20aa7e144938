import type { Dashboard } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { type Function as LambdaFunction, MetricType, Runtime } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { checkInboxTableUse } from './checkInboxTableUse.js';
import { createConsumerFunction, toGrant } from './createConsumerFunction.js';
import { createInboxDashboard } from './createInboxDashboard.js';
import {
  createInboxAlarms,
  type InboxAlarms,
  type MonitoredQueues,
} from './createInboxMonitoring.js';
import type { InboxConsumerProps } from './InboxConsumerProps.js';
import { InboxTable } from './InboxTable.js';
import { OutboxRelay } from './OutboxRelay.js';
import { createStandardDeadLetterQueue } from './ownResources.js';
import {
  type InboxConsumerSettings,
  resolveInboxConsumerProps,
} from './resolveInboxConsumerProps.js';
import { type ResolvedQueueSources, resolveQueueSources } from './resolveQueueSources.js';

/**
 * Item-level actions a business table gets by default: what the transaction builder needs.
 *
 * @example
 * ```ts
 * const actions = [...DEFAULT_BUSINESS_TABLE_ACTIONS, 'dynamodb:DeleteItem'];
 * ```
 * @public
 */
export const DEFAULT_BUSINESS_TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:ConditionCheckItem',
] as const;

/** Item-level actions on a table, and use of its customer-managed key if it has one. */
function grantTable(table: ITable, grantee: IGrantable, actions: readonly string[]): void {
  table.grant(grantee, ...actions);
  table.encryptionKey?.grantEncryptDecrypt(grantee);
}

/**
 * An SQS consumer with a transactional inbox: the queue and its DLQ with a redrive policy, the
 * inbox table with TTL, the function (bundled locally with esbuild, ESM, Node.js 24 and ARM64
 * by default), the event source mapping with `ReportBatchItemFailures` and its metrics on,
 * least-privilege grants, alarms and a dashboard. Props are validated at synth time. The function's environment is
 * the contract that `inboxConfigFromEnvironment()` (from `sqs-inbox`) reads.
 *
 * @example
 * ```ts
 * import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
 * declare const accounts: ITable;
 * // ---cut---
 * import { InboxConsumer } from 'sqs-inbox/cdk';
 * const ledger = new InboxConsumer(stack, 'Ledger', {
 *   consumer: 'ledger', function: { entry: 'src/ledger.ts' }, queue: { fifo: true },
 *   businessTables: { accounts },
 * });
 * ```
 * @public
 */
export class InboxConsumer extends Construct {
  /** The source queue (FIFO when `queue.fifo`), encrypted, TLS only, with the redrive policy. */
  readonly queue: Queue;
  /** Where SQS moves a message after `deadLetter.maxReceiveCount` receives, and the library dead-letters permanent failures. */
  readonly deadLetterQueue: Queue;
  /** The inbox table: the one given as `inboxTable`, or the one the construct created. */
  readonly inboxTable: ITable;
  /** The consumer function: the one the construct created from `function`, or `existingFunction`. */
  readonly function: LambdaFunction;

  /** The event source mapping from `queue` to `function`, with `ReportBatchItemFailures`. */
  readonly eventSource: SqsEventSource;
  /**
   * Where EventBridge puts events it gave up delivering to `queue`, when an EventBridge source
   * is declared: `deadLetterQueue` itself on a standard consumer (one queue, one alarm, one
   * redrive); on a FIFO consumer a standard queue of its own (EventBridge's DLQs are standard).
   */
  readonly deliveryDeadLetterQueue: Queue | undefined;
  /**
   * DLQ depth above zero and its oldest message near its retention, the failure rate (metric
   * math: left out when the CDK context `sqs-inbox:metricMathAlarms` is `false`, as on an
   * emulator), function errors, lease takeovers, the oldest message older than
   * `monitoring.queueAgeAlarmThreshold`, delivery DLQ depth above zero. Each description names
   * the `sqs-inbox` command to run.
   */
  readonly alarms: InboxAlarms;
  /**
   * The library's metrics (counts, latency, steps and leases), the queues' depth and age, the
   * function's errors, throttles and duration, the event source mapping's counts, failures by
   * error name, and the commands for this consumer.
   */
  readonly dashboard: Dashboard;
  /** The outbox and its relay, when `outbox` is given. */
  readonly outbox: OutboxRelay | undefined;

  /**
   * The log group the construct created for its function (kept a month); undefined with
   * `existingFunction`, whose own `logGroup` is yours to read (its getter adds a log-retention
   * custom resource when the function was made without one).
   */
  readonly logGroup: ILogGroup | undefined;

  constructor(scope: Construct, id: string, props: InboxConsumerProps) {
    super(scope, id);
    const settings = resolveInboxConsumerProps(this, props);
    const sources = resolveQueueSources(this, props.sources, props.key);
    this.deadLetterQueue = this.#createDeadLetterQueue(settings);
    this.queue = this.#createQueue(settings);
    this.deliveryDeadLetterQueue = this.#bindSources(sources, settings);
    this.inboxTable = props.inboxTable ?? this.#createInboxTable(settings);
    checkInboxTableUse(
      this,
      this.inboxTable,
      settings.consumer,
      Object.values(props.businessTables ?? {}).map((entry) => toGrant(entry).table),
    );
    this.outbox = props.outbox && this.#createOutbox(props, settings);
    const parts = {
      scope: this,
      inboxTable: this.inboxTable,
      deadLetterQueue: this.deadLetterQueue,
      sources,
      outbox: this.outbox,
    };
    const { fn, logGroup } = createConsumerFunction(parts, props, settings);
    this.function = fn;
    this.logGroup = logGroup;
    this.#grant(props, settings);
    this.outbox?.grantPublish(this.function);
    this.eventSource = this.#readQueue(settings);
    const { alarms, dashboard } = this.#monitor(props, settings);
    this.alarms = alarms;
    this.dashboard = dashboard;
  }

  /** The function's event source mapping on the queue, with `ReportBatchItemFailures`. */
  #readQueue(s: InboxConsumerSettings): SqsEventSource {
    const eventSource = new SqsEventSource(this.queue, {
      batchSize: s.batchSize,
      maxBatchingWindow: s.maxBatchingWindow,
      maxConcurrency: s.maxConcurrency,
      reportBatchItemFailures: true,
      // The mapping's own counts (polled, invoked, failed, deleted): off unless asked for.
      metricsConfig: { metrics: [MetricType.EVENT_COUNT] },
    });
    this.function.addEventSource(eventSource);
    return eventSource;
  }

  /** The consumer's alarms and dashboard. */
  #monitor(
    props: InboxConsumerProps,
    s: InboxConsumerSettings,
  ): { readonly alarms: InboxAlarms; readonly dashboard: Dashboard } {
    const fn = this.function;
    const queues: MonitoredQueues = {
      queue: this.queue,
      deadLetterQueue: this.deadLetterQueue,
      deliveryDeadLetterQueue: this.deliveryDeadLetterQueue,
    };
    const alarms = createInboxAlarms(this, { queues, fn }, s, props.monitoring?.alarmTopic);
    const dashboard = createInboxDashboard(
      this,
      {
        queues,
        fn,
        // An existing function's log group by Lambda's default name: its getter would add a
        // log-retention custom resource.
        logGroupName: this.logGroup?.logGroupName ?? `/aws/lambda/${fn.functionName}`,
        eventSourceMappingId: this.eventSource.eventSourceMappingId,
      },
      s,
    );
    return { alarms, dashboard };
  }

  /** Wires each source to the queue; returns the delivery DLQ if a source needed one. */
  #bindSources(sources: ResolvedQueueSources, s: InboxConsumerSettings): Queue | undefined {
    let deliveryDeadLetterQueue: Queue | undefined;
    const context = {
      scope: this,
      consumer: s.consumer,
      queue: this.queue,
      fifo: s.fifo,
      contentBasedDeduplication: s.contentBasedDeduplication,
      deadLetterQueue: this.deadLetterQueue,
      deliveryDeadLetterQueue: () => {
        deliveryDeadLetterQueue ??= s.fifo
          ? this.#createDeliveryDeadLetterQueue()
          : this.deadLetterQueue;
        return deliveryDeadLetterQueue;
      },
    };
    sources.sources.forEach((source, index) => {
      source.bind(context, index);
    });
    return deliveryDeadLetterQueue;
  }

  #createDeadLetterQueue(s: InboxConsumerSettings): Queue {
    return new Queue(this, 'DeadLetterQueue', {
      fifo: s.fifo || undefined,
      retentionPeriod: s.deadLetterRetentionPeriod,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
  }

  /** A FIFO consumer's standard queue for what EventBridge could not deliver. */
  #createDeliveryDeadLetterQueue(): Queue {
    // cdk-nag's SQS3 looks for redrive policies and Lambda DLQs only, not at an EventBridge
    // target's DeadLetterConfig: its finding here is a false positive, acknowledged as such.
    return createStandardDeadLetterQueue(
      this,
      'DeliveryDeadLetterQueue',
      'The dead-letter queue of EventBridge rule targets (their DeadLetterConfig).',
    );
  }

  #createQueue(s: InboxConsumerSettings): Queue {
    return new Queue(this, 'Queue', {
      fifo: s.fifo || undefined,
      contentBasedDeduplication: s.contentBasedDeduplication || undefined,
      retentionPeriod: s.retentionPeriod,
      visibilityTimeout: s.visibilityTimeout,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: s.maxReceiveCount },
    });
  }

  #createInboxTable(s: InboxConsumerSettings): InboxTable {
    return new InboxTable(this, 'InboxTable', { removalPolicy: s.removalPolicy });
  }

  #createOutbox(props: InboxConsumerProps, s: InboxConsumerSettings): OutboxRelay {
    return new OutboxRelay(this, 'Outbox', {
      removalPolicy: s.removalPolicy,
      ...(props.monitoring?.alarmTopic ? { alarmTopic: props.monitoring.alarmTopic } : {}),
      runtime: props.function?.runtime ?? props.existingFunction?.runtime ?? Runtime.NODEJS_24_X,
      ...(props.function?.architecture ? { architecture: props.function.architecture } : {}),
      ...(props.existingFunction ? { architecture: props.existingFunction.architecture } : {}),
      ...props.outbox,
      name: s.consumer,
      metricsNamespace: s.metricsNamespace,
      destinations: props.outbox?.destinations ?? {},
    });
  }

  #grant(props: InboxConsumerProps, s: InboxConsumerSettings): void {
    this.#grantOwnInboxEntries(s.consumer);
    this.deadLetterQueue.grantSendMessages(this.function);
    for (const { table, actions } of Object.values(props.businessTables ?? {}).map(toGrant)) {
      // DescribeTable is how the library finds a table's key to refuse two operations on one item.
      grantTable(table, this.function, [
        ...new Set([...(actions ?? DEFAULT_BUSINESS_TABLE_ACTIONS), 'dynamodb:DescribeTable']),
      ]);
    }
  }

  /**
   * Reads and writes of the inbox table, limited by `dynamodb:LeadingKeys` to this consumer's
   * own `consumer#key` entries: consumers sharing the table cannot touch each other's entries.
   * `UpdateItem` is the steps' lease (their claim, journal, heartbeat, release and commit) and
   * the record of a step-less attempt's failure;
   * `BatchGetItem` the batch's pre-check read.
   */
  #grantOwnInboxEntries(consumer: string): void {
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions: [
          'dynamodb:GetItem',
          'dynamodb:BatchGetItem',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
        ],
        resources: [this.inboxTable.tableArn],
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${consumer}#*`] },
        },
      }),
    );
    this.inboxTable.encryptionKey?.grantEncryptDecrypt(this.function);
  }
}
