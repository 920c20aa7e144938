import type { Dashboard } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  businessTableVariable,
  INBOX_ENVIRONMENT_PREFIX,
  InboxEnvironment,
} from '../constants/values.js';
import { bundlingFor } from './bundlingFor.js';
import { checkInboxTableUse } from './checkInboxTableUse.js';
import {
  createInboxAlarms,
  createInboxDashboard,
  type InboxAlarms,
  type MonitoredQueues,
} from './createInboxMonitoring.js';
import type { BusinessTableGrant, InboxConsumerProps } from './InboxConsumerProps.js';
import { InboxTable } from './InboxTable.js';
import { OutboxRelay } from './OutboxRelay.js';
import { createFunctionRole, createStandardDeadLetterQueue } from './ownResources.js';
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

/** Variables the construct sets besides the `INBOX_` ones; `environment` may not override them. */
const RESERVED_ENVIRONMENT: readonly string[] = [
  'POWERTOOLS_SERVICE_NAME',
  'POWERTOOLS_METRICS_NAMESPACE',
  'NODE_OPTIONS',
];

/** The grant of one `businessTables` entry, whether given as a table or as `{ table, actions }`. */
function toGrant(entry: ITable | BusinessTableGrant): BusinessTableGrant {
  return 'table' in entry && !('tableName' in entry) ? entry : { table: entry as ITable };
}

/** Item-level actions on a table, and use of its customer-managed key if it has one. */
function grantTable(table: ITable, grantee: IGrantable, actions: readonly string[]): void {
  table.grant(grantee, ...actions);
  table.encryptionKey?.grantEncryptDecrypt(grantee);
}

/**
 * An SQS consumer with a transactional inbox: the queue and its DLQ with a redrive policy, the
 * inbox table with TTL, the function (bundled locally with esbuild, ESM, Node.js 24 and ARM64
 * by default), the event source mapping with `ReportBatchItemFailures`, least-privilege grants,
 * two alarms and a dashboard. Props are validated at synth time. The function's environment is
 * the contract that `inboxConfigFromEnvironment()` (from `sqs-inbox`) reads.
 *
 * @example
 * ```ts
 * import { InboxConsumer } from 'sqs-inbox/cdk';
 * const ledger = new InboxConsumer(stack, 'Ledger', {
 *   consumerName: 'ledger', entry: 'src/ledger.ts', fifo: true,
 *   businessTables: { accounts },
 * });
 * ```
 * @public
 */
export class InboxConsumer extends Construct {
  /** The source queue (FIFO when `fifo`), encrypted, TLS only, with the redrive policy. */
  readonly queue: Queue;
  /** Where SQS moves a message after `maxReceiveCount` receives, and the library dead-letters permanent failures. */
  readonly deadLetterQueue: Queue;
  /** The inbox table: the one given as `inboxTable`, or the one the construct created. */
  readonly inboxTable: ITable;
  /** The consumer function. */
  readonly function: NodejsFunction;
  /** The function's log group (one month). */
  readonly logGroup: LogGroup;
  /** The event source mapping from `queue` to `function`, with `ReportBatchItemFailures`. */
  readonly eventSource: SqsEventSource;
  /**
   * Where EventBridge puts events it gave up delivering to `queue`, when an EventBridge source
   * is declared: `deadLetterQueue` itself on a standard consumer (one queue, one alarm, one
   * redrive); on a FIFO consumer a standard queue of its own (EventBridge's DLQs are standard).
   */
  readonly deliveryDeadLetterQueue: Queue | undefined;
  /** DLQ depth above zero, the oldest message older than `queueAgeAlarmThreshold`, delivery DLQ depth above zero. */
  readonly alarms: InboxAlarms;
  /** The library's metrics and the queues' depth and age. */
  readonly dashboard: Dashboard;
  /** The outbox and its relay, when `outbox` is given. */
  readonly outbox: OutboxRelay | undefined;

  constructor(scope: Construct, id: string, props: InboxConsumerProps) {
    super(scope, id);
    const settings = resolveInboxConsumerProps(props);
    const sources = resolveQueueSources(settings.consumerName, props.sources, props.messageKey);
    this.deadLetterQueue = this.#createDeadLetterQueue(settings);
    this.queue = this.#createQueue(settings);
    this.deliveryDeadLetterQueue = this.#bindSources(sources, settings);
    this.inboxTable = props.inboxTable ?? this.#createInboxTable(settings);
    checkInboxTableUse(
      this,
      this.inboxTable,
      settings.consumerName,
      Object.values(props.businessTables ?? {}).map((entry) => toGrant(entry).table),
    );
    this.logGroup = new LogGroup(this, 'FunctionLogs', { retention: RetentionDays.ONE_MONTH });
    this.outbox = props.outbox && this.#createOutbox(props, settings);
    this.function = this.#createFunction(props, settings, sources);
    this.#grant(props);
    this.outbox?.grantPublish(this.function);
    this.eventSource = new SqsEventSource(this.queue, {
      batchSize: settings.batchSize,
      maxBatchingWindow: settings.maxBatchingWindow,
      maxConcurrency: settings.maxConcurrency,
      reportBatchItemFailures: true,
    });
    this.function.addEventSource(this.eventSource);
    const queues: MonitoredQueues = {
      queue: this.queue,
      deadLetterQueue: this.deadLetterQueue,
      deliveryDeadLetterQueue: this.deliveryDeadLetterQueue,
    };
    this.alarms = createInboxAlarms(this, queues, settings, props.alarmTopic);
    this.dashboard = createInboxDashboard(this, queues, settings);
  }

  /** Wires each source to the queue; returns the delivery DLQ if a source needed one. */
  #bindSources(sources: ResolvedQueueSources, s: InboxConsumerSettings): Queue | undefined {
    let deliveryDeadLetterQueue: Queue | undefined;
    const context = {
      scope: this,
      consumerName: s.consumerName,
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
    return new InboxTable(this, 'InboxTable', { removalPolicy: s.inboxTableRemovalPolicy });
  }

  #createOutbox(props: InboxConsumerProps, s: InboxConsumerSettings): OutboxRelay {
    return new OutboxRelay(this, 'Outbox', {
      removalPolicy: s.inboxTableRemovalPolicy,
      ...(props.alarmTopic ? { alarmTopic: props.alarmTopic } : {}),
      ...(props.runtime ? { runtime: props.runtime } : {}),
      ...(props.architecture ? { architecture: props.architecture } : {}),
      ...props.outbox,
      name: s.consumerName,
      destinations: props.outbox?.destinations ?? {},
    });
  }

  #createFunction(
    props: InboxConsumerProps,
    s: InboxConsumerSettings,
    sources: ResolvedQueueSources,
  ): NodejsFunction {
    const overridden = Object.keys(props.environment ?? {}).filter(
      (name) => name.startsWith(INBOX_ENVIRONMENT_PREFIX) || RESERVED_ENVIRONMENT.includes(name),
    );
    if (overridden.length > 0) {
      throw new Error(
        `InboxConsumer ${s.consumerName}: environment may not set ${overridden.join(', ')}; the construct sets them from its props.`,
      );
    }
    const businessEnvironment = Object.fromEntries(
      Object.entries(props.businessTables ?? {}).map(([name, entry]) => [
        businessTableVariable(name),
        toGrant(entry).table.tableName,
      ]),
    );
    // An own role and log group instead of AWSLambdaBasicExecutionRole, whose logs:* actions
    // apply to every log group of the account.
    const logGroup = this.logGroup;
    const role = createFunctionRole(this, `sqs-inbox consumer ${s.consumerName}`, logGroup);
    const runtime = props.runtime ?? Runtime.NODEJS_24_X;
    return new NodejsFunction(this, 'Function', {
      role,
      entry: props.entry,
      handler: props.handler ?? 'handler',
      runtime,
      architecture: props.architecture ?? Architecture.ARM_64,
      timeout: s.functionTimeout,
      memorySize: s.memorySize,
      logGroup,
      environment: {
        [InboxEnvironment.TableName]: this.inboxTable.tableName,
        [InboxEnvironment.Consumer]: s.consumerName,
        [InboxEnvironment.TtlSeconds]: String(s.inboxTtl.toSeconds()),
        [InboxEnvironment.DeadLetterQueueUrl]: this.deadLetterQueue.queueUrl,
        [InboxEnvironment.MaxReceiveCount]: String(s.maxReceiveCount),
        [InboxEnvironment.Sources]: sources.kinds.join(','),
        ...(sources.keyVariable ? { [InboxEnvironment.Key]: sources.keyVariable } : {}),
        POWERTOOLS_SERVICE_NAME: s.consumerName,
        POWERTOOLS_METRICS_NAMESPACE: s.metricsNamespace,
        // Stack traces through the minified bundle point at the TypeScript sources.
        NODE_OPTIONS: '--enable-source-maps',
        ...businessEnvironment,
        ...this.outbox?.publisherEnvironment(),
        ...props.environment,
      },
      bundling: bundlingFor(runtime, props.bundling),
    });
  }

  #grant(props: InboxConsumerProps): void {
    this.#grantOwnInboxEntries(props.consumerName);
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
   * `UpdateItem` is the steps' lease: their claim, journal, heartbeat, release and commit;
   * `BatchGetItem` the batch's pre-check read.
   */
  #grantOwnInboxEntries(consumerName: string): void {
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
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${consumerName}#*`] },
        },
      }),
    );
    this.inboxTable.encryptionKey?.grantEncryptDecrypt(this.function);
  }
}
