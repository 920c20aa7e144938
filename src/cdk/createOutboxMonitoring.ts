import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { InboxMetric } from '../constants/values.js';
import { functionErrorsAlarm } from './createInboxMonitoring.js';
import { inboxMetric } from './inboxMetric.js';
import { outboxReportCommand } from './operatorCommands.js';
import { depthAboveZeroAlarm } from './ownResources.js';

/**
 * The relay's alarms: anything in its dead-letter queue, the relay falling behind, and the
 * relay failing whole invocations.
 *
 * @example
 * ```ts
 * declare const outbox: OutboxRelay;
 * // ---cut---
 * import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
 * outbox.alarms.iteratorAge.addAlarmAction(new SnsAction(pager));
 * ```
 * @public
 */
export interface OutboxAlarms {
  /** Dead-letter queue depth above zero: refused messages, or batches Lambda gave up on. */
  readonly deadLetters: Alarm;
  /** The relay's `IteratorAge` (maximum) at or above `iteratorAgeAlarmThreshold`. */
  readonly iteratorAge: Alarm;
  /**
   * The relay's `Errors` above zero in 5 minutes: invocations that failed whole (a timeout, an
   * error outside any record), which Lambda retries after bisecting the batch.
   */
  readonly functionErrors: Alarm;
}

/**
 * What the relay's alarms and dashboard watch: its name, function, dead-letter queue, and the
 * namespace its metrics go to.
 *
 * @example
 * ```ts
 * const relay: MonitoredRelay = { name: 'ledger', fn, deadLetterQueue, metricsNamespace: 'SqsInbox' };
 * ```
 */
export interface MonitoredRelay {
  readonly name: string;
  readonly fn: IFunction;
  readonly deadLetterQueue: Queue;
  readonly metricsNamespace: string;
}

/**
 * Creates the relay's alarms, all sent to `alarmTopic` when given; each description names the
 * command to run.
 *
 * @example
 * ```ts
 * const alarms = createOutboxAlarms(this, relay, Duration.minutes(5), props.alarmTopic);
 * ```
 */
export function createOutboxAlarms(
  scope: Construct,
  relay: MonitoredRelay,
  iteratorAgeThreshold: Duration,
  alarmTopic: ITopic | undefined,
): OutboxAlarms {
  const report = outboxReportCommand(relay.deadLetterQueue.queueUrl);
  const deadLetters = depthAboveZeroAlarm(
    scope,
    'DeadLettersAlarm',
    relay.deadLetterQueue,
    `${relay.name} outbox: messages in the relay's dead-letter queue. Run \`${report}\`: a body ` +
      'of kind sqs-inbox.outbox.dead-letter is a refused message with its reason; one with ' +
      'DDBStreamBatchInfo a batch Lambda gave up on. See the runbook.',
  );
  const iteratorAge = new Alarm(scope, 'IteratorAgeAlarm', {
    alarmDescription: `${relay.name} outbox: the relay is ${iteratorAgeThreshold.toHumanString()} or more behind the stream (failing or too slow). See its dashboard and \`${report}\`.`,
    metric: relay.fn.metric('IteratorAge', { period: Duration.minutes(1), statistic: 'Maximum' }),
    threshold: iteratorAgeThreshold.toMilliseconds(),
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 3,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  const functionErrors = functionErrorsAlarm(scope, relay.fn, `${relay.name} outbox: `, report);
  const alarms = { deadLetters, iteratorAge, functionErrors };
  if (alarmTopic) {
    for (const alarm of Object.values(alarms)) alarm.addAlarmAction(new SnsAction(alarmTopic));
  }
  return alarms;
}

/**
 * Creates the relay's dashboard: its counts (relayed, dead-lettered, failed records), the
 * function's errors, duration and iterator age, the dead-letter queue's depth, and the command
 * that reports what the queue holds.
 *
 * @example
 * ```ts
 * const dashboard = createOutboxDashboard(this, relay);
 * ```
 */
export function createOutboxDashboard(scope: Construct, relay: MonitoredRelay): Dashboard {
  const dashboard = new Dashboard(scope, 'Dashboard');
  dashboard.addWidgets(relayMessagesGraph(relay), relayFunctionGraph(relay));
  dashboard.addWidgets(
    new TextWidget({
      markdown: [
        `### ${relay.name} outbox: commands`,
        `What the relay's dead-letter queue holds: \`${outboxReportCommand(relay.deadLetterQueue.queueUrl)}\``,
      ].join('\n'),
      width: 24,
      height: 3,
    }),
  );
  return dashboard;
}

/** The relay's counts (relayed, dead-lettered, failed records) beside its DLQ's depth. */
function relayMessagesGraph(relay: MonitoredRelay): GraphWidget {
  const service = { metricsNamespace: relay.metricsNamespace, consumer: relay.name };
  const count = (metricName: string) => inboxMetric(service, metricName, Duration.minutes(1));
  return new GraphWidget({
    title: `${relay.name} outbox: messages`,
    left: [
      InboxMetric.OutboxMessagesRelayed,
      InboxMetric.OutboxDeadLettered,
      InboxMetric.OutboxRecordsFailed,
    ].map(count),
    right: [relay.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ label: 'DLQ depth' })],
    width: 12,
  });
}

function relayFunctionGraph({ name, fn }: MonitoredRelay): GraphWidget {
  const minute = Duration.minutes(1);
  return new GraphWidget({
    title: `${name} outbox: relay function`,
    left: [fn.metricErrors({ period: minute }), fn.metricThrottles({ period: minute })],
    right: [
      fn.metricDuration({ period: minute, statistic: 'p99', label: 'duration p99 (ms)' }),
      fn.metric('IteratorAge', {
        period: minute,
        statistic: 'Maximum',
        label: 'iterator age (ms)',
      }),
    ],
    width: 12,
  });
}
