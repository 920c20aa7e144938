import { Validations } from 'aws-cdk-lib';
import type { Dashboard } from 'aws-cdk-lib/aws-cloudwatch';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import {
  FilterCriteria,
  FilterRule,
  type Function as LambdaFunction,
  StartingPosition,
} from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { destinationVariable, InboxEnvironment } from '../constants/values.js';
import {
  createOutboxAlarms,
  createOutboxDashboard,
  type MonitoredRelay,
  type OutboxAlarms,
} from './createOutboxMonitoring.js';
import { createRelayFunction } from './createRelayFunction.js';
import type { OutboxRelayProps } from './OutboxRelayProps.js';
import { OutboxTable } from './OutboxTable.js';
import { createFunctionRole, createStandardDeadLetterQueue } from './ownResources.js';
import {
  destinationAddress,
  grantSend,
  type OutboxRelaySettings,
  resolveOutboxRelayProps,
} from './resolveOutboxRelayProps.js';

/**
 * A transactional outbox and its relay: the outbox table (stream, TTL, PITR), the library's
 * relay function (pre-built in the package: nothing is bundled at synth) behind a DynamoDB
 * event source mapping (new and changed items only, partial
 * batch responses, bisect on error, a retry limit, a maximum record age, the dead-letter queue
 * as on-failure destination), its dead-letter queue, alarms and a dashboard, and grants to send to exactly
 * the named destinations. `InboxConsumer` creates one for its `outbox`; use it alone to share
 * one outbox between consumers.
 *
 * @example
 * ```ts
 * const outbox = new OutboxRelay(stack, 'Outbox', {
 *   name: 'ledger', destinations: { credits: creditsQueue },
 * });
 * outbox.grantPublish(ledger.function);
 * ```
 * @public
 */
export class OutboxRelay extends Construct {
  /** The outbox table the publishers write with `tx.publish`; its stream feeds `function`. */
  readonly table: OutboxTable;
  /** Where the relay puts refused messages (in full, with the reason) and Lambda gives up batches. */
  readonly deadLetterQueue: Queue;
  /**
   * The relay's function: the library's relay as the package ships it (`dist/relay-function`,
   * deployed as it is), or a `NodejsFunction` bundling your `relayEntry`. It is granted the send
   * to each destination and to `deadLetterQueue`.
   */
  readonly function: LambdaFunction;
  /** The event source mapping from the table's stream to `function`, as the class describes it. */
  readonly eventSource: DynamoEventSource;
  /** Dead-letter queue depth above zero, the relay falling behind the stream, and its errors. */
  readonly alarms: OutboxAlarms;
  /** The relay's counts, its function's errors, duration and iterator age, its DLQ's depth. */
  readonly dashboard: Dashboard;
  /** How long items live, in seconds (the functions' `INBOX_OUTBOX_RETENTION_SECONDS`). */
  readonly retentionSeconds: number;
  /** Each destination's address by logical name (queue URL, topic ARN, bus ARN). */
  readonly destinations: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string, props: OutboxRelayProps) {
    super(scope, id);
    const settings = resolveOutboxRelayProps(this, props);
    this.retentionSeconds = settings.retention.toSeconds();
    this.destinations = Object.fromEntries(
      Object.entries(props.destinations).map(([name, target]) => [
        name,
        destinationAddress(target),
      ]),
    );
    this.table = new OutboxTable(this, 'Table', { removalPolicy: props.removalPolicy });
    this.deadLetterQueue = createStandardDeadLetterQueue(
      this,
      'DeadLetterQueue',
      "It is the relay's dead-letter queue (its mapping's on-failure destination).",
    );
    this.function = this.#createFunction(props, settings.metricsNamespace);
    for (const destination of Object.values(props.destinations))
      grantSend(destination, this.function);
    this.deadLetterQueue.grantSendMessages(this.function);
    this.eventSource = this.#readStream(settings);
    const monitored: MonitoredRelay = {
      name: props.name,
      fn: this.function,
      deadLetterQueue: this.deadLetterQueue,
      metricsNamespace: settings.metricsNamespace,
    };
    const { iteratorAgeAlarmThreshold } = settings;
    this.alarms = createOutboxAlarms(this, monitored, iteratorAgeAlarmThreshold, props.alarmTopic);
    this.dashboard = createOutboxDashboard(this, monitored);
  }

  /** The function's event source mapping on the table's stream, as the class describes it. */
  #readStream(settings: OutboxRelaySettings): DynamoEventSource {
    const eventSource = new DynamoEventSource(this.table, {
      startingPosition: StartingPosition.TRIM_HORIZON,
      batchSize: settings.batchSize,
      bisectBatchOnError: true,
      retryAttempts: settings.retryAttempts,
      maxRecordAge: settings.maxRecordAge,
      parallelizationFactor: settings.parallelizationFactor,
      reportBatchItemFailures: true,
      // New and changed items only: TTL deletions (REMOVE) are never relayed.
      filters: [FilterCriteria.filter({ eventName: FilterRule.or('INSERT', 'MODIFY') })],
      onFailure: new SqsDlq(this.deadLetterQueue),
    });
    this.function.addEventSource(eventSource);
    // The stream read (the event source's grant) includes dynamodb:ListStreams, which has no
    // resource-level permission: that one wildcard, and no other, is acknowledged.
    Validations.of(this.function.role ?? this).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        'dynamodb:ListStreams, part of reading the stream, supports no resource-level permission.',
    });
    return eventSource;
  }

  /** Lets a function publish through this outbox: `PutItem` and `UpdateItem` on its table. */
  grantPublish(grantee: IGrantable): void {
    this.table.grant(grantee, 'dynamodb:PutItem', 'dynamodb:UpdateItem');
  }

  /**
   * The variables a publishing function needs (`inboxConfigFromEnvironment` reads them): the
   * table, the retention and each destination's address as `INBOX_DESTINATION_<name>`.
   */
  publisherEnvironment(): Record<string, string> {
    return {
      [InboxEnvironment.OutboxTableName]: this.table.tableName,
      [InboxEnvironment.OutboxRetentionSeconds]: String(this.retentionSeconds),
      ...Object.fromEntries(
        Object.entries(this.destinations).map(([name, address]) => [
          destinationVariable(name),
          address,
        ]),
      ),
    };
  }

  #createFunction(props: OutboxRelayProps, metricsNamespace: string): LambdaFunction {
    const logGroup = new LogGroup(this, 'FunctionLogs', { retention: RetentionDays.ONE_MONTH });
    const role = createFunctionRole(this, `sqs-inbox outbox relay of ${props.name}`, logGroup);
    const environment = {
      [InboxEnvironment.RelayDeadLetterQueueUrl]: this.deadLetterQueue.queueUrl,
      // The library's relay writes its counts under them (one EMF line per batch).
      POWERTOOLS_SERVICE_NAME: props.name,
      POWERTOOLS_METRICS_NAMESPACE: metricsNamespace,
    };
    return createRelayFunction({ scope: this, role, logGroup, environment }, props);
  }
}
