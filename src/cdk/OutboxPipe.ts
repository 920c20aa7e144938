import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { type IGrantable, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { CfnPipe } from 'aws-cdk-lib/aws-pipes';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue, Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct, type IConstruct } from 'constructs';
import {
  DEFAULT_OUTBOX_RETENTION_SECONDS,
  InboxEnvironment,
  OUTBOX_RETENTION_RANGE,
  OutboxMessageIdField,
} from '../constants/values.js';
import { inRange } from './inRange.js';
import { OutboxTable } from './OutboxTable.js';
import { createStandardDeadLetterQueue, depthAboveZeroAlarm } from './ownResources.js';
import { resolveMaxRecordAge } from './resolveMaxRecordAge.js';

/**
 * Properties of {@link OutboxPipe}.
 *
 * @example
 * ```ts
 * const props: OutboxPipeProps = { name: 'ledger', destination: creditsQueue };
 * ```
 * @beta
 */
export interface OutboxPipeProps {
  /** Names the pipe's resources and alarms (the publishing consumer's name, say). */
  readonly name: string;
  /** The one SQS queue, standard or FIFO, every message goes to. */
  readonly destination: IQueue;
  /**
   * The customer-managed KMS key of an imported destination queue (`Queue.fromQueueArn` does not
   * know it): the pipe's role may then use it to send. A queue defined in the app grants its
   * own key.
   * @defaultValue none: a queue defined in the app, or one without a customer-managed key
   */
  readonly destinationKey?: IKey;
  /**
   * Records per target call, 1 to 10 (an SQS target takes at most 10).
   * @defaultValue `10`
   */
  readonly batchSize?: number;
  /**
   * Retries of a failing batch (bisected) before it goes to the dead-letter queue, 0 to 10,000
   * (never the pipe's infinite).
   * @defaultValue `10`
   */
  readonly retryAttempts?: number;
  /**
   * Records older than this go to the dead-letter queue unsent (their stream range only),
   * 1 minute to 12 hours (never the pipe's infinite): a given-up batch is read back from the
   * stream, which keeps records 24 hours, so at least 12 are left to redrive it.
   * @defaultValue `Duration.hours(6)`
   */
  readonly maxRecordAge?: Duration;
  /**
   * How long outbox items live, 2 to 366 days (a day past the stream's 24 hours at least).
   * @defaultValue `Duration.days(7)`
   */
  readonly retention?: Duration;
  /**
   * The outbox table's removal policy.
   * @defaultValue `RemovalPolicy.RETAIN`
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Where the alarms notify.
   * @defaultValue none (alarms only change state)
   */
  readonly alarmTopic?: ITopic;
}

/**
 * The alarms of an {@link OutboxPipe}.
 *
 * @example
 * ```ts
 * declare const outbox: OutboxPipe;
 * // ---cut---
 * import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
 * outbox.alarms.failures.addAlarmAction(new SnsAction(pager));
 * ```
 * @beta
 */
export interface OutboxPipeAlarms {
  /** Dead-letter queue depth above zero: batches the pipe gave up on. */
  readonly deadLetters: Alarm;
  /** The pipe's executions failing three minutes in a row. */
  readonly failures: Alarm;
}

/**
 * The managed alternative to {@link OutboxRelay}: an outbox table whose stream an EventBridge
 * pipe relays, without a function, to one SQS queue. Where it fits: every message goes to that
 * one queue, carries no message attributes (a pipe sets none), and a transaction publishes at
 * most one message to a group (each item then holds one message). The publishers' store
 * refuses anything else (`OutgoingMessageError`, from `INBOX_OUTBOX_PIPE_DESTINATION` in
 * {@link OutboxPipe.publisherEnvironment}), so nothing is silently left out. It filters out TTL
 * deletions, bisects a failing batch, retries it `retryAttempts` times, and gives up batches to
 * its dead-letter queue (with the stream range only, as Lambda's mapping does).
 *
 * What reaches the queue rests on documented behaviour only. The pipe has no input template, so
 * each message body is the item's stream record itself, as JSON, the item in DynamoDB JSON: an
 * input template is optional, and only with one does its text replace the event sent to the
 * target (https://docs.aws.amazon.com/eventbridge/latest/pipes-reference/API_PipeTargetParameters.html,
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-input-transformation.html);
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-dynamodb.html shows the
 * record; a batch of records maps to the target's batch API, one record per SQS message
 * (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-batching-concurrency.html).
 * The body is a JSON string value inside that record, escaped by the serialiser like any other:
 * nothing of it passes through a template. A consumer with the `outbox` source reads the item's
 * message (`OutboxMessageIdField.PipedIdPath`, `PipedBodyPath`) and keys it by its outbox id. On
 * FIFO the pipe sets the group and deduplication id from the record by JSON path, which
 * target parameters take (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-event-target.html).
 *
 * Not run on a real pipe (no emulator runs one): the exact bytes Pipes writes (the store counts
 * the item exactly as compact JSON and bounds the rest of the record, see `pipedRecordBytes`),
 * and the shape of the pipe's dead-letter record (`redriveOutbox` reads Lambda's).
 *
 * @example
 * ```ts
 * const outbox = new OutboxPipe(stack, 'Outbox', { name: 'ledger', destination: creditsQueue });
 * outbox.grantPublish(ledger.function);
 * for (const [name, value] of Object.entries(outbox.publisherEnvironment()))
 *   ledger.function.addEnvironment(name, value);
 * ```
 * @beta
 */
export class OutboxPipe extends Construct {
  /** The outbox table the publishers write with `tx.publish`; its stream feeds `pipe`. */
  readonly table: OutboxTable;
  /** The pipe from the table's stream to `destination`: new and changed items only. */
  readonly pipe: CfnPipe;
  /**
   * The pipe's role: reads the stream, sends to `destination` (using `destinationKey`, when
   * given) and to `deadLetterQueue`.
   */
  readonly role: Role;
  /**
   * Where the pipe gives up a batch after `retryAttempts` or `maxRecordAge`: its stream range,
   * not its messages (read them back from the stream within 24 hours).
   */
  readonly deadLetterQueue: Queue;
  /** Dead-letter queue depth above zero, and pipe executions failing three minutes running. */
  readonly alarms: OutboxPipeAlarms;
  /** How long items live, in seconds (the publishers' `INBOX_OUTBOX_RETENTION_SECONDS`). */
  readonly retentionSeconds: number;
  readonly #destination: IQueue;

  constructor(scope: Construct, id: string, props: OutboxPipeProps) {
    super(scope, id);
    const settings = resolveOutboxPipeProps(this, props);
    this.#destination = props.destination;
    this.retentionSeconds = settings.retention.toSeconds();
    this.table = new OutboxTable(this, 'Table', { removalPolicy: props.removalPolicy });
    this.deadLetterQueue = createStandardDeadLetterQueue(
      this,
      'DeadLetterQueue',
      "It is the outbox pipe's dead-letter queue.",
    );
    this.role = this.#createRole(props.destination, props.destinationKey);
    this.pipe = new CfnPipe(this, 'Pipe', {
      description: `sqs-inbox outbox of ${props.name}, relayed to one SQS queue`,
      roleArn: this.role.roleArn,
      source: this.table.tableStreamArn ?? '',
      sourceParameters: {
        dynamoDbStreamParameters: {
          startingPosition: 'TRIM_HORIZON',
          batchSize: settings.batchSize,
          maximumRetryAttempts: settings.retryAttempts,
          maximumRecordAgeInSeconds: settings.maxRecordAge.toSeconds(),
          onPartialBatchItemFailure: 'AUTOMATIC_BISECT',
          deadLetterConfig: { arn: this.deadLetterQueue.queueArn },
        },
        // New and changed items only: TTL deletions (REMOVE) are never relayed. Every format
        // version passes: a record a filter leaves out is dropped silently, so the consumer reads
        // the item's `formatVersion` and refuses a newer one (FormatVersionError, retried).
        filterCriteria: { filters: [{ pattern: JSON.stringify(NEW_OR_CHANGED) }] },
      },
      target: props.destination.queueArn,
      // No input template: the record itself is the body, the message's body a JSON string in
      // it that the serialiser escapes (see above). A template would substitute the body into
      // its own text, and how Pipes escapes a substituted value is what no emulator can show.
      ...(props.destination.fifo
        ? { targetParameters: { sqsQueueParameters: OUTBOX_PIPE_FIFO_PARAMETERS } }
        : {}),
    });
    this.pipe.node.addDependency(this.role);
    this.alarms = this.#createAlarms(props);
  }

  /** Lets a function publish through this outbox: `PutItem` and `UpdateItem` on its table. */
  grantPublish(grantee: IGrantable): void {
    this.table.grant(grantee, 'dynamodb:PutItem', 'dynamodb:UpdateItem');
  }

  /**
   * The variables a publishing function needs: the table, the retention, and the pipe's queue
   * (`INBOX_OUTBOX_PIPE_DESTINATION`), which is also where `tx.publish` must send.
   */
  publisherEnvironment(): Record<string, string> {
    return {
      [InboxEnvironment.OutboxTableName]: this.table.tableName,
      [InboxEnvironment.OutboxRetentionSeconds]: String(this.retentionSeconds),
      [InboxEnvironment.OutboxPipeDestination]: this.#destination.queueUrl,
    };
  }

  /** The pipe's role: read the outbox stream, send to the queue and the dead-letter queue. */
  #createRole(destination: IQueue, destinationKey: IKey | undefined): Role {
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('pipes.amazonaws.com'),
      description: 'sqs-inbox outbox pipe: reads the outbox stream, sends to one queue',
    });
    role.addToPolicy(
      new PolicyStatement({
        actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        resources: [this.table.tableStreamArn ?? ''],
      }),
    );
    // ListStreams supports no resource-level permission: that one wildcard, and no other.
    role.addToPolicy(new PolicyStatement({ actions: ['dynamodb:ListStreams'], resources: ['*'] }));
    Validations.of(role).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        'dynamodb:ListStreams, part of reading the stream, supports no resource-level permission.',
    });
    destination.grantSendMessages(role);
    destinationKey?.grant(role, 'kms:GenerateDataKey', 'kms:Decrypt');
    this.deadLetterQueue.grantSendMessages(role);
    return role;
  }

  #createAlarms(props: OutboxPipeProps): OutboxPipeAlarms {
    const deadLetters = depthAboveZeroAlarm(
      this,
      'DeadLettersAlarm',
      this.deadLetterQueue,
      `${props.name} outbox pipe: batches it gave up on (their stream range). See the runbook.`,
    );
    const failures = new Alarm(this, 'FailuresAlarm', {
      alarmDescription: `${props.name} outbox pipe: executions failing three minutes in a row (the queue refusing, the role denied, the pipe stopped).`,
      metric: new Metric({
        namespace: 'AWS/EventBridge/Pipes',
        metricName: 'ExecutionFailed',
        dimensionsMap: { PipeName: this.pipe.ref },
        period: Duration.minutes(1),
        statistic: 'Sum',
      }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 3,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    if (props.alarmTopic) {
      for (const alarm of [deadLetters, failures])
        alarm.addAlarmAction(new SnsAction(props.alarmTopic));
    }
    return { deadLetters, failures };
  }
}

const NEW_OR_CHANGED = { eventName: ['INSERT', 'MODIFY'] };

/**
 * A FIFO destination's group and deduplication id, read by the pipe from each record by JSON
 * path: the message's `groupId` and its outbox id.
 *
 * @example
 * ```ts
 * OUTBOX_PIPE_FIFO_PARAMETERS.messageDeduplicationId; // '$.dynamodb.NewImage.messages.L[0].M.id.S'
 * ```
 */
export const OUTBOX_PIPE_FIFO_PARAMETERS = {
  messageGroupId: OutboxMessageIdField.PipedGroupIdPath,
  messageDeduplicationId: OutboxMessageIdField.PipedIdPath,
} as const;

interface OutboxPipeSettings {
  readonly batchSize: number;
  readonly retryAttempts: number;
  readonly maxRecordAge: Duration;
  readonly retention: Duration;
}

function resolveOutboxPipeProps(scope: IConstruct, props: OutboxPipeProps): OutboxPipeSettings {
  const settings = {
    batchSize: props.batchSize ?? 10,
    retryAttempts: props.retryAttempts ?? 10,
    maxRecordAge: resolveMaxRecordAge(scope, props.maxRecordAge),
    retention: props.retention ?? Duration.seconds(DEFAULT_OUTBOX_RETENTION_SECONDS),
  };
  inRange(scope, 'batchSize', settings.batchSize, 1, 10);
  inRange(scope, 'retryAttempts', settings.retryAttempts, 0, 10_000);
  const { min, max } = OUTBOX_RETENTION_RANGE;
  inRange(scope, 'retention (seconds)', settings.retention.toSeconds(), min, max);
  return settings;
}
