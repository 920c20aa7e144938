import { Duration, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
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
import { createRelayFunction } from './createRelayFunction.js';
import type { OutboxRelayProps } from './OutboxRelayProps.js';
import { OutboxTable } from './OutboxTable.js';
import {
  createFunctionRole,
  createStandardDeadLetterQueue,
  depthAboveZeroAlarm,
} from './ownResources.js';
import {
  destinationAddress,
  grantSend,
  resolveOutboxRelayProps,
} from './resolveOutboxRelayProps.js';

/**
 * The relay's alarms: anything in its dead-letter queue, and the relay falling behind.
 *
 * @example
 * ```ts
 * relay.alarms.iteratorAge.addAlarmAction(new SnsAction(pager));
 * ```
 * @public
 */
export interface OutboxAlarms {
  /** Dead-letter queue depth above zero: refused messages, or batches Lambda gave up on. */
  readonly deadLetters: Alarm;
  /** The relay's `IteratorAge` (maximum) at or above `iteratorAgeAlarmThreshold`. */
  readonly iteratorAge: Alarm;
}

/**
 * A transactional outbox and its relay: the outbox table (stream, TTL, PITR), the library's
 * relay function (pre-built in the package: nothing is bundled at synth) behind a DynamoDB
 * event source mapping (new and changed items only, partial
 * batch responses, bisect on error, a retry limit, a maximum record age, the dead-letter queue
 * as on-failure destination), its dead-letter queue, two alarms, and grants to send to exactly
 * the named destinations. `InboxConsumer` creates one for its `outbox`; use it alone to share
 * one outbox between consumers.
 *
 * @example
 * ```ts
 * const outbox = new OutboxRelay(stack, 'Outbox', { name: 'ledger', destinations: { credits } });
 * outbox.grantPublish(myFunction);
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
  /** Dead-letter queue depth above zero, and the relay falling behind the stream. */
  readonly alarms: OutboxAlarms;
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
    this.function = this.#createFunction(props);
    for (const destination of Object.values(props.destinations))
      grantSend(destination, this.function);
    this.deadLetterQueue.grantSendMessages(this.function);
    this.eventSource = new DynamoEventSource(this.table, {
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
    this.function.addEventSource(this.eventSource);
    // The stream read (the event source's grant) includes dynamodb:ListStreams, which has no
    // resource-level permission: that one wildcard, and no other, is acknowledged.
    Validations.of(this.function.role ?? this).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        'dynamodb:ListStreams, part of reading the stream, supports no resource-level permission.',
    });
    this.alarms = this.#createAlarms(props, settings.iteratorAgeAlarmThreshold);
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

  #createFunction(props: OutboxRelayProps): LambdaFunction {
    const logGroup = new LogGroup(this, 'FunctionLogs', { retention: RetentionDays.ONE_MONTH });
    const role = createFunctionRole(this, `sqs-inbox outbox relay of ${props.name}`, logGroup);
    const environment = {
      [InboxEnvironment.RelayDeadLetterQueueUrl]: this.deadLetterQueue.queueUrl,
    };
    return createRelayFunction({ scope: this, role, logGroup, environment }, props);
  }

  #createAlarms(props: OutboxRelayProps, threshold: Duration): OutboxAlarms {
    const deadLetters = depthAboveZeroAlarm(
      this,
      'DeadLettersAlarm',
      this.deadLetterQueue,
      `${props.name} outbox: messages in the relay's dead-letter queue. A body of kind ` +
        'sqs-inbox.outbox.dead-letter is a refused message with its reason; one with ' +
        'DDBStreamBatchInfo a batch Lambda gave up on. See the runbook.',
    );
    const iteratorAge = new Alarm(this, 'IteratorAgeAlarm', {
      alarmDescription: `${props.name} outbox: the relay is ${threshold.toHumanString()} or more behind the stream (failing or too slow).`,
      metric: this.function.metric('IteratorAge', {
        period: Duration.minutes(1),
        statistic: 'Maximum',
      }),
      threshold: threshold.toMilliseconds(),
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 3,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    if (props.alarmTopic) {
      for (const alarm of [deadLetters, iteratorAge])
        alarm.addAlarmAction(new SnsAction(props.alarmTopic));
    }
    return { deadLetters, iteratorAge };
  }
}
