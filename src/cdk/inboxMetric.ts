import type { Duration } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { InboxConsumerSettings } from './resolveInboxConsumerProps.js';

/**
 * One of the library's metrics of a consumer or a relay (namespace and `service` dimension as
 * its function writes them: a relay's service is its name), summed over `period`.
 *
 * @example
 * ```ts
 * const processed = inboxMetric(settings, InboxMetric.Processed, Duration.minutes(1));
 * const relayed = inboxMetric({ metricsNamespace, consumer: relay.name }, InboxMetric.OutboxMessagesRelayed, period);
 * ```
 */
export function inboxMetric(
  service: Pick<InboxConsumerSettings, 'metricsNamespace' | 'consumer'>,
  metricName: string,
  period: Duration,
): Metric {
  return new Metric({
    namespace: service.metricsNamespace,
    metricName,
    dimensionsMap: { service: service.consumer },
    statistic: 'Sum',
    period,
  });
}
