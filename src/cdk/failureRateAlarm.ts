import { Annotations, Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  MathExpression,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import { CdkContext, InboxMetric } from '../constants/values.js';
import { InboxValidationError } from './InboxValidationError.js';
import { inboxMetric } from './inboxMetric.js';
import type { InboxConsumerSettings } from './resolveInboxConsumerProps.js';

/**
 * The failure-rate alarm's threshold: the share of records failed (retried or dead-lettered)
 * among all records handled, in percent, over two of three 5-minute periods. A handful of
 * transient failures retried by SQS stays below it; a handler failing for a tenth of its
 * traffic does not.
 */
const FAILURE_RATE_ALARM_PERCENT = 10;

/**
 * Whether the app's context lets the constructs create alarms on metric math
 * (`CdkContext.MetricMathAlarms`, default `true`). `-c` gives strings, `cdk.json` and
 * `new App({ context })` may give booleans: both spellings are taken, anything else refused.
 *
 * @example
 * ```ts
 * if (metricMathAlarmsAllowed(this)) createTheAlarm();
 * ```
 */
function metricMathAlarmsAllowed(scope: Construct): boolean {
  const value: unknown = scope.node.tryGetContext(CdkContext.MetricMathAlarms);
  if (value === undefined || value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new InboxValidationError(
    scope,
    `the CDK context ${CdkContext.MetricMathAlarms} must be true or false (given ${JSON.stringify(value)}): set -c ${CdkContext.MetricMathAlarms}=false to leave out metric-math alarms on an emulator, or remove it.`,
  );
}

/**
 * The share of this consumer's records that failed, in percent, as an alarm: metric math over
 * the library's `InboxFailures`, `InboxProcessed` and `InboxDuplicates` — exact, since it divides
 * the sums of a period. Undefined, with an info annotation saying so, when the context leaves
 * metric-math alarms out (an emulator's deploy).
 *
 * @example
 * ```ts
 * const failureRate = failureRateAlarm(this, settings, commands.dlqReport);
 * ```
 */
export function failureRateAlarm(
  scope: Construct,
  s: InboxConsumerSettings,
  command: string,
): Alarm | undefined {
  if (!metricMathAlarmsAllowed(scope)) {
    Annotations.of(scope).addInfo(
      `FailureRateAlarm left out (metric math): the CDK context ${CdkContext.MetricMathAlarms} is false. Deploy without it to have the alarm (consumer.alarms.failureRate).`,
    );
    return undefined;
  }
  const period = Duration.minutes(5);
  const rate = new MathExpression({
    label: 'failed records (%)',
    expression:
      'IF(failed + processed + duplicates > 0, 100 * failed / (failed + processed + duplicates), 0)',
    usingMetrics: {
      failed: inboxMetric(s, InboxMetric.Failures, period),
      processed: inboxMetric(s, InboxMetric.Processed, period),
      duplicates: inboxMetric(s, InboxMetric.Duplicates, period),
    },
    period,
  });
  return new Alarm(scope, 'FailureRateAlarm', {
    alarmDescription: `${s.consumer}: ${FAILURE_RATE_ALARM_PERCENT} % or more of the records failed in two of the last three 5-minute periods. See "failures by error name" on the dashboard and the function's WARN/ERROR lines, fix the cause, then run \`${command}\`.`,
    metric: rate,
    threshold: FAILURE_RATE_ALARM_PERCENT,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 3,
    datapointsToAlarm: 2,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}
