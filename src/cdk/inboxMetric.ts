import type { Duration } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { InboxConsumerSettings } from './resolveInboxConsumerProps.js';

/**
 * One of the library's metrics of this consumer (namespace and `service` dimension as the
 * function writes them), summed over `period`.
 *
 * @example
 * ```ts
 * const processed = inboxMetric(settings, InboxMetric.Processed, Duration.minutes(1));
 * ```
 */
export function inboxMetric(
  s: InboxConsumerSettings,
  metricName: string,
  period: Duration,
): Metric {
  return new Metric({
    namespace: s.metricsNamespace,
    metricName,
    dimensionsMap: { service: s.consumer },
    statistic: 'Sum',
    period,
  });
}
