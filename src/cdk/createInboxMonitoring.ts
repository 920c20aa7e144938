import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { InboxMetric } from '../constants/values.js';
import { failureRateAlarm } from './failureRateAlarm.js';
import { inboxMetric } from './inboxMetric.js';
import { operatorCommands } from './operatorCommands.js';
import { depthAboveZeroAlarm } from './ownResources.js';
import type { InboxConsumerSettings } from './resolveInboxConsumerProps.js';

/**
 * The queues an `InboxConsumer` watches.
 *
 * @example
 * ```ts
 * const queues: MonitoredQueues = { queue, deadLetterQueue, deliveryDeadLetterQueue: undefined };
 * ```
 */
export interface MonitoredQueues {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly deliveryDeadLetterQueue: Queue | undefined;
}

/**
 * The alarms of an `InboxConsumer`. None watches the retry metrics: a visibility change that
 * failed (`InboxVisibilityChangesFailed`) leaves its record to the queue's visibility timeout, as
 * without `retry`; the dashboard graphs them.
 *
 * @example
 * ```ts
 * import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
 * ledger.alarms.deadLetters.addAlarmAction(new SnsAction(pager));
 * ```
 * @public
 */
export interface InboxAlarms {
  /** DLQ depth above zero. */
  readonly deadLetters: Alarm;
  /**
   * The oldest message in the DLQ close to its retention: older than the DLQ's retention less
   * the source queue's (a standard DLQ expires a message by its first enqueue, which its age
   * in the DLQ does not count) less a day, at least an hour. Fires while there is time to act.
   */
  readonly deadLetterAge: Alarm;
  /**
   * The share of failed records (`InboxFailures` among processed, duplicates and failures, by
   * metric math) at or above 10 % in two of three 5-minute periods. Undefined when the CDK
   * context `sqs-inbox:metricMathAlarms` is `false` (`CdkContext.MetricMathAlarms` of
   * `sqs-inbox/constants`), which an emulator's deploy sets: MiniStack's CloudFormation refuses
   * a metric-math alarm.
   */
  readonly failureRate: Alarm | undefined;
  /**
   * The function failed whole invocations (Lambda's `Errors` above zero in 5 minutes): a
   * timeout, or an error outside any record (configuration, a malformed event). Record
   * failures are reported per record and do not count here.
   */
  readonly functionErrors: Alarm;
  /**
   * A step's lease taken over after its holder crashed or timed out (`InboxLeaseTakeovers`
   * above zero in 5 minutes): an effect of a step it ran but had not journaled may have run
   * twice, unless the step's idempotency key protected it. Stays OK for a handler without steps.
   */
  readonly leaseTakeovers: Alarm;
  /** The oldest message older than `queueAgeAlarmThreshold`. */
  readonly queueAge: Alarm;
  /**
   * Events EventBridge gave up delivering: only on a FIFO consumer with an EventBridge source
   * (a standard consumer's go to `deadLetterQueue`, which `deadLetters` watches).
   */
  readonly deliveryDeadLetters: Alarm | undefined;
}

/**
 * Creates the consumer's alarms, all sent to `alarmTopic` when given. Each description names the
 * command to run for this consumer.
 *
 * @example
 * ```ts
 * const alarms = createInboxAlarms(this, { queues, fn }, settings, props.alarmTopic);
 * ```
 */
export function createInboxAlarms(
  scope: Construct,
  parts: { readonly queues: MonitoredQueues; readonly fn: IFunction },
  s: InboxConsumerSettings,
  alarmTopic: ITopic | undefined,
): InboxAlarms {
  const { queues, fn } = parts;
  const commands = operatorCommands(fn.functionName);
  const alarms: InboxAlarms = {
    ...deadLetterAlarms(scope, queues, s, commands),
    deadLetterAge: deadLetterAgeAlarm(scope, queues.deadLetterQueue, s, commands),
    failureRate: failureRateAlarm(scope, s, commands.dlqReport),
    functionErrors: functionErrorsAlarm(scope, fn, `${s.consumer}: `, commands.dlqReport),
    leaseTakeovers: inboxCountAlarm(scope, s, {
      id: 'LeaseTakeoversAlarm',
      metricName: InboxMetric.LeaseTakeovers,
      description: `${s.consumer}: a step's lease was taken over after the attempt holding it crashed or timed out; a step it ran without journaling may have run twice. Check the effects of the message named in the "lease taken over" log line with \`${commands.message}\`.`,
    }),
    queueAge: queueAgeAlarm(scope, queues.queue, s, commands),
  };
  if (alarmTopic) {
    for (const alarm of Object.values(alarms)) alarm?.addAlarmAction(new SnsAction(alarmTopic));
  }
  return alarms;
}

type OperatorCommands = ReturnType<typeof operatorCommands>;

/** Depth above zero of the DLQ, and of the delivery DLQ when it is a queue of its own. */
function deadLetterAlarms(
  scope: Construct,
  queues: MonitoredQueues,
  s: InboxConsumerSettings,
  commands: OperatorCommands,
): Pick<InboxAlarms, 'deadLetters' | 'deliveryDeadLetters'> {
  const depthAbove0 = (id: string, queue: Queue, description: string) =>
    depthAboveZeroAlarm(scope, id, queue, `${s.consumer}: ${description}`);
  const delivery = separateDeliveryQueue(queues);
  return {
    deadLetters: depthAbove0(
      'DeadLettersAlarm',
      queues.deadLetterQueue,
      `messages in the dead-letter queue. Run \`${commands.dlqReport}\` to see them by reason (eventbridge:<ERROR_CODE> for events EventBridge could not deliver), fix the cause, then \`${commands.dlqRedrive}\` (a dry run; --apply to act).`,
    ),
    deliveryDeadLetters:
      delivery &&
      depthAbove0(
        'DeliveryDeadLettersAlarm',
        delivery,
        'events EventBridge gave up delivering to the queue. Read their ERROR_CODE and ' +
          "ERROR_MESSAGE attributes, fix the cause, then send each to the queue with the rule's " +
          'messageGroupId: they keep their event id, so the inbox applies each once.',
      ),
  };
}

function queueAgeAlarm(
  scope: Construct,
  queue: Queue,
  s: InboxConsumerSettings,
  commands: OperatorCommands,
): Alarm {
  return new Alarm(scope, 'QueueAgeAlarm', {
    alarmDescription: `${s.consumer}: the oldest message waits longer than ${s.queueAgeAlarmThreshold.toHumanString()}. The consumer is failing or too slow: see its dashboard, and \`${commands.dlqReport}\`.`,
    metric: queue.metricApproximateAgeOfOldestMessage({
      period: Duration.minutes(1),
      statistic: 'Maximum',
    }),
    threshold: s.queueAgeAlarmThreshold.toSeconds(),
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 3,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}

/**
 * An alarm on the function's `Errors` above zero in 5 minutes, its description naming the
 * command to run.
 *
 * @example
 * ```ts
 * functionErrorsAlarm(this, fn, 'ledger: ', 'npx sqs-inbox dlq report --function f');
 * ```
 */
export function functionErrorsAlarm(
  scope: Construct,
  fn: IFunction,
  prefix: string,
  command: string,
): Alarm {
  return new Alarm(scope, 'FunctionErrorsAlarm', {
    alarmDescription: `${prefix}the function failed whole invocations (a timeout, or an error outside any record: configuration, a malformed event). Read the function's ERROR log lines, then run \`${command}\`.`,
    metric: fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
    threshold: 0,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}

function inboxCountAlarm(
  scope: Construct,
  s: InboxConsumerSettings,
  alarm: { readonly id: string; readonly metricName: string; readonly description: string },
): Alarm {
  return new Alarm(scope, alarm.id, {
    alarmDescription: alarm.description,
    metric: inboxMetric(s, alarm.metricName, Duration.minutes(5)),
    threshold: 0,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}

/**
 * The age of the DLQ's oldest message at which the construct alarms, in seconds: the DLQ's
 * retention less the source queue's and a day, at least an hour.
 *
 * @example
 * ```ts
 * deadLetterAgeThresholdSeconds(settings); // 777,600 (9 days) with the defaults
 * ```
 */
export function deadLetterAgeThresholdSeconds(s: InboxConsumerSettings): number {
  const margin = s.retentionPeriod.toSeconds() + Duration.days(1).toSeconds();
  return Math.max(Duration.hours(1).toSeconds(), s.deadLetterRetentionPeriod.toSeconds() - margin);
}

function deadLetterAgeAlarm(
  scope: Construct,
  deadLetterQueue: Queue,
  s: InboxConsumerSettings,
  commands: OperatorCommands,
): Alarm {
  const threshold = deadLetterAgeThresholdSeconds(s);
  return new Alarm(scope, 'DeadLetterAgeAlarm', {
    alarmDescription: `${s.consumer}: the oldest dead letter is ${Duration.seconds(threshold).toHumanString()} old or more and the DLQ drops it at ${s.deadLetterRetentionPeriod.toHumanString()} (a standard DLQ counts from its first enqueue). Run \`${commands.dlqReport}\` now, then \`${commands.dlqRedrive}\` (a dry run; --apply to act).`,
    metric: deadLetterQueue.metricApproximateAgeOfOldestMessage({
      period: Duration.minutes(5),
      statistic: 'Maximum',
    }),
    threshold,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}

/**
 * The delivery DLQ when it is not the consumer's DLQ itself (a FIFO consumer's).
 *
 * @example
 * ```ts
 * const delivery = separateDeliveryQueue(queues);
 * ```
 */
export function separateDeliveryQueue(queues: MonitoredQueues): Queue | undefined {
  const delivery = queues.deliveryDeadLetterQueue;
  return delivery === queues.deadLetterQueue ? undefined : delivery;
}
