import { Duration } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { InboxMetric } from '../../src/constants/index.js';
import { consumerTemplate } from './stackFactory.js';

/** One graph of the dashboard, as CloudWatch reads it. */
interface GraphWidgetJson {
  readonly properties: { readonly title?: string; readonly metrics?: unknown[][] };
}

/**
 * The consumer's dashboard widgets: its body's `Fn::Join` with every token (a region, a queue's
 * name) read as the text `TOKEN`, which only ever stands inside a JSON string there.
 */
function dashboardWidgets(template: Template): GraphWidgetJson[] {
  const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
  const body = dashboard?.Properties.DashboardBody;
  const parts: unknown[] = typeof body === 'string' ? [body] : body['Fn::Join'][1];
  const text = parts.map((part) => (typeof part === 'string' ? part : 'TOKEN')).join('');
  return JSON.parse(text).widgets;
}

/** The retries graph's metrics as `[namespace, name, dimensions, period and stat, label, axis]`. */
function retriesMetrics(template: Template) {
  const widget = dashboardWidgets(template).find(
    (candidate) => candidate.properties.title === 'orders: retries',
  );
  return widget?.properties.metrics?.map((line) => {
    const options = line.at(-1) as { period: number; stat: string; label: string; yAxis?: string };
    const [namespace, metricName, ...dimensions] = line.slice(0, -1);
    const statistic = `${options.stat} per ${options.period} s`;
    return [
      namespace,
      metricName,
      dimensions.join('='),
      statistic,
      options.label,
      options.yAxis ?? 'left',
    ];
  });
}

describe('InboxConsumer dashboard with retry', () => {
  it('graphs the retries under the consumer’s namespace and service: records delayed, lease-held re-timed and failed changes on the left, the delays’ sum and longest in seconds on the right', () => {
    const { template } = consumerTemplate({ monitoring: { metricsNamespace: 'Shop' } });
    const line = (name: string, statistic: string, label: string, axis: string) => [
      'Shop',
      name,
      'service=orders',
      `${statistic} per 60 s`,
      label,
      axis,
    ];

    expect(retriesMetrics(template)).toEqual([
      line('InboxRetryDelaySeconds', 'SampleCount', 'records delayed', 'left'),
      line('InboxLeaseHeldRetimed', 'Sum', 'lease-held copies re-timed', 'left'),
      line('InboxVisibilityChangesFailed', 'Sum', 'visibility changes failed', 'left'),
      line('InboxRetryDelaySeconds', 'Sum', 'delays given (s, sum)', 'right'),
      line('InboxRetryDelaySeconds', 'Maximum', 'longest delay (s)', 'right'),
    ]);
  });

  it('graphs the retries with the construct’s default retry, and with a backoff', () => {
    const withBackoff = consumerTemplate({
      retry: { backoff: { firstDelay: Duration.seconds(5), maxDelay: Duration.minutes(1) } },
    });

    expect(retriesMetrics(consumerTemplate().template)).toHaveLength(5);
    expect(retriesMetrics(withBackoff.template)).toHaveLength(5);
  });

  it('leaves the retries graph out with retry: false, whose function changes no visibility', () => {
    const { template } = consumerTemplate({ retry: false });

    expect(retriesMetrics(template)).toBeUndefined();
    expect(dashboardWidgets(template).map((widget) => widget.properties.title)).toContain(
      'orders: steps and leases',
    );
  });

  it('sets no alarm on a retry metric: a failed visibility change leaves the record to the queue’s timeout', () => {
    const { template } = consumerTemplate();

    for (const metricName of [
      InboxMetric.RetryDelaySeconds,
      InboxMetric.LeaseHeldRetimed,
      InboxMetric.VisibilityChangesFailed,
    ]) {
      template.resourcePropertiesCountIs('AWS::CloudWatch::Alarm', { MetricName: metricName }, 0);
    }
    expect(JSON.stringify(template.findResources('AWS::CloudWatch::Alarm'))).not.toMatch(
      /InboxRetryDelaySeconds|InboxLeaseHeldRetimed|InboxVisibilityChangesFailed/,
    );
  });
});
