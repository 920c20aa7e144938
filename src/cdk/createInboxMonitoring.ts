import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { InboxMetric } from '../constants/values.js';
import { depthAboveZeroAlarm } from './ownResources.js';
import type { InboxConsumerSettings } from './resolveInboxConsumerProps.js';

/** The library's count metrics, as the dashboard reads them. */
const INBOX_COUNTS = [
  InboxMetric.Processed,
  InboxMetric.Duplicates,
  InboxMetric.Failures,
  InboxMetric.PermanentFailures,
  InboxMetric.DeadLettered,
] as const;

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
 * The alarms of an `InboxConsumer`.
 *
 * @example
 * ```ts
 * consumer.alarms.deadLetters.addAlarmAction(new SnsAction(topic));
 * ```
 * @public
 */
export interface InboxAlarms {
  /** DLQ depth above zero. */
  readonly deadLetters: Alarm;
  /** The oldest message older than `queueAgeAlarmThreshold`. */
  readonly queueAge: Alarm;
  /**
   * Events EventBridge gave up delivering: only on a FIFO consumer with an EventBridge source
   * (a standard consumer's go to `deadLetterQueue`, which `deadLetters` watches).
   */
  readonly deliveryDeadLetters: Alarm | undefined;
}

/**
 * Creates the consumer's alarms, all sent to `alarmTopic` when given.
 *
 * @example
 * ```ts
 * const alarms = createInboxAlarms(this, queues, settings, props.alarmTopic);
 * ```
 */
export function createInboxAlarms(
  scope: Construct,
  queues: MonitoredQueues,
  s: InboxConsumerSettings,
  alarmTopic: ITopic | undefined,
): InboxAlarms {
  const depthAbove0 = (id: string, queue: Queue, description: string) =>
    depthAboveZeroAlarm(scope, id, queue, `${s.consumer}: ${description}`);
  const deadLetters = depthAbove0(
    'DeadLettersAlarm',
    queues.deadLetterQueue,
    'messages in the dead-letter queue. Read their inbox.error attributes (ERROR_CODE for events EventBridge could not deliver), fix the cause, then redrive.',
  );
  const queueAge = new Alarm(scope, 'QueueAgeAlarm', {
    alarmDescription: `${s.consumer}: the oldest message waits longer than ${s.queueAgeAlarmThreshold.toHumanString()}. The consumer is failing or too slow.`,
    metric: queues.queue.metricApproximateAgeOfOldestMessage({
      period: Duration.minutes(1),
      statistic: 'Maximum',
    }),
    threshold: s.queueAgeAlarmThreshold.toSeconds(),
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 3,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  const delivery = separateDeliveryQueue(queues);
  const deliveryDeadLetters =
    delivery &&
    depthAbove0(
      'DeliveryDeadLettersAlarm',
      delivery,
      'events EventBridge gave up delivering to the queue. Read their ERROR_CODE and ' +
        "ERROR_MESSAGE attributes, fix the cause, then send each to the queue with the rule's " +
        'messageGroupId: they keep their event id, so the inbox applies each once.',
    );
  const alarms = [deadLetters, queueAge, deliveryDeadLetters].filter((a) => a !== undefined);
  if (alarmTopic) for (const alarm of alarms) alarm.addAlarmAction(new SnsAction(alarmTopic));
  return { deadLetters, queueAge, deliveryDeadLetters };
}

/** The delivery DLQ when it is not the consumer's DLQ itself (a FIFO consumer's). */
function separateDeliveryQueue(queues: MonitoredQueues): Queue | undefined {
  const delivery = queues.deliveryDeadLetterQueue;
  return delivery === queues.deadLetterQueue ? undefined : delivery;
}

/**
 * Creates the consumer's dashboard: the library's metrics and the queues' depth and age.
 *
 * @example
 * ```ts
 * const dashboard = createInboxDashboard(this, queues, settings);
 * ```
 */
export function createInboxDashboard(
  scope: Construct,
  queues: MonitoredQueues,
  s: InboxConsumerSettings,
): Dashboard {
  const inboxMetric = (metricName: string) =>
    new Metric({
      namespace: s.metricsNamespace,
      metricName,
      dimensionsMap: { service: s.consumer },
      statistic: 'Sum',
      period: Duration.minutes(1),
    });
  const dashboard = new Dashboard(scope, 'Dashboard');
  const latency = inboxMetric(InboxMetric.HandlerLatency).with({
    statistic: 'p99',
    label: 'handler latency p99 (ms)',
  });
  const delivery = separateDeliveryQueue(queues);
  const depths = [
    queues.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ label: 'DLQ depth' }),
    ...(delivery
      ? [delivery.metricApproximateNumberOfMessagesVisible({ label: 'delivery DLQ depth' })]
      : []),
  ];
  dashboard.addWidgets(
    new GraphWidget({
      title: `${s.consumer}: messages`,
      left: INBOX_COUNTS.map(inboxMetric),
      right: [latency],
      width: 12,
    }),
    new GraphWidget({
      title: `${s.consumer}: queues`,
      left: depths,
      right: [queues.queue.metricApproximateAgeOfOldestMessage({ label: 'oldest message (s)' })],
      width: 12,
    }),
  );
  return dashboard;
}
