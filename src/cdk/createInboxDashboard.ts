import { Duration } from 'aws-cdk-lib';
import {
  Dashboard,
  GraphWidget,
  type HorizontalAnnotation,
  LogQueryWidget,
  Metric,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { InboxMetric } from '../constants/values.js';
import {
  deadLetterAgeThresholdSeconds,
  type MonitoredQueues,
  separateDeliveryQueue,
} from './createInboxMonitoring.js';
import { inboxMetric } from './inboxMetric.js';
import { operatorCommands } from './operatorCommands.js';
import type { InboxConsumerSettings } from './resolveInboxConsumerProps.js';

/** The library's count metrics of every record, as the dashboard reads them. */
const INBOX_COUNTS = [
  InboxMetric.Processed,
  InboxMetric.Duplicates,
  InboxMetric.Failures,
  InboxMetric.PermanentFailures,
  InboxMetric.DeadLettered,
] as const;

/** The library's metrics of handlers with steps. */
const STEP_COUNTS = [
  InboxMetric.StepsRun,
  InboxMetric.StepsReplayed,
  InboxMetric.LeasesHeld,
  InboxMetric.LeasesLost,
  InboxMetric.LeaseTakeovers,
] as const;

/** The event source mapping's own counts (with `metricsConfig` `EventCount`), polled to deleted. */
const MAPPING_COUNTS = [
  'PolledEventCount',
  'InvokedEventCount',
  'FailedInvokeEventCount',
  'DeletedEventCount',
] as const;

/**
 * What the consumer's dashboard reads: its queues, its function and that function's log group,
 * and the event source mapping.
 *
 * @example
 * ```ts
 * const parts: DashboardParts = { queues, fn, logGroupName, eventSourceMappingId };
 * ```
 */
export interface DashboardParts {
  readonly queues: MonitoredQueues;
  readonly fn: IFunction;
  readonly logGroupName: string;
  readonly eventSourceMappingId: string;
}

/**
 * Creates the consumer's dashboard: the library's counts and latency, the queues' depth and age,
 * the DLQ's oldest message, the function's errors, throttles and duration, the event source
 * mapping's counts, steps and leases, failures by error name (Logs Insights over the function's
 * log lines), the commands to run for this consumer, and, unless `retry` is `false`, retries.
 *
 * @example
 * ```ts
 * const dashboard = createInboxDashboard(this, parts, settings);
 * ```
 */
export function createInboxDashboard(
  scope: Construct,
  parts: DashboardParts,
  s: InboxConsumerSettings,
): Dashboard {
  const count = (metricName: string) => inboxMetric(s, metricName, Duration.minutes(1));
  const dlqs = deadLetterQueues(parts.queues);
  const dashboard = new Dashboard(scope, 'Dashboard');
  const latency = count(InboxMetric.HandlerLatency).with({
    statistic: 'p99',
    label: 'handler latency p99 (ms)',
  });
  dashboard.addWidgets(
    graph(`${s.consumer}: messages`, INBOX_COUNTS.map(count), [latency]),
    queuesGraph(s, parts.queues.queue, dlqs),
  );
  dashboard.addWidgets(deadLetterAgeGraph(s, dlqs), functionGraph(s, parts.fn));
  dashboard.addWidgets(
    graph(
      `${s.consumer}: event source mapping`,
      MAPPING_COUNTS.map((metricName) => mappingMetric(metricName, parts.eventSourceMappingId)),
      [],
    ),
    graph(`${s.consumer}: steps and leases`, STEP_COUNTS.map(count), []),
  );
  dashboard.addWidgets(failuresByErrorName(parts.logGroupName, s), commandsText(parts.fn, s));
  if (s.retry !== undefined) dashboard.addWidgets(retriesGraph(s, count));
  return dashboard;
}

/**
 * What `retry` did: the records delayed (a sample each), the lease-held copies among them and
 * the records whose visibility SQS did not change, by the left axis; the delays given (their
 * sum and longest) by the right, in seconds. No alarm watches the failed changes: such a record
 * comes back after the queue's own timeout, as it would without `retry`.
 */
function retriesGraph(
  s: InboxConsumerSettings,
  count: (metricName: string) => Metric,
): GraphWidget {
  const delay = count(InboxMetric.RetryDelaySeconds);
  return graph(
    `${s.consumer}: retries`,
    [
      delay.with({ statistic: 'SampleCount', label: 'records delayed' }),
      count(InboxMetric.LeaseHeldRetimed).with({ label: 'lease-held copies re-timed' }),
      count(InboxMetric.VisibilityChangesFailed).with({ label: 'visibility changes failed' }),
    ],
    [
      delay.with({ statistic: 'Sum', label: 'delays given (s, sum)' }),
      delay.with({ statistic: 'Maximum', label: 'longest delay (s)' }),
    ],
  );
}

/** A DLQ the dashboard graphs, with its label. */
interface LabelledQueue {
  readonly queue: Queue;
  readonly label: string;
}

/** The DLQ, and the delivery DLQ when it is a queue of its own. */
function deadLetterQueues(queues: MonitoredQueues): LabelledQueue[] {
  const delivery = separateDeliveryQueue(queues);
  return [
    { queue: queues.deadLetterQueue, label: 'DLQ' },
    ...(delivery ? [{ queue: delivery, label: 'delivery DLQ' }] : []),
  ];
}

function queuesGraph(s: InboxConsumerSettings, queue: Queue, dlqs: LabelledQueue[]): GraphWidget {
  return graph(
    `${s.consumer}: queues`,
    dlqs.map(({ queue: dlq, label }) =>
      dlq.metricApproximateNumberOfMessagesVisible({ label: `${label} depth` }),
    ),
    [queue.metricApproximateAgeOfOldestMessage({ label: 'oldest message (s)' })],
  );
}

function deadLetterAgeGraph(s: InboxConsumerSettings, dlqs: LabelledQueue[]): GraphWidget {
  return new GraphWidget({
    title: `${s.consumer}: oldest dead letter (s)`,
    left: dlqs.map(({ queue, label }) =>
      queue.metricApproximateAgeOfOldestMessage({ label: `${label} oldest (s)` }),
    ),
    leftAnnotations: [deadLetterAgeAnnotation(s)],
    width: 12,
  });
}

function functionGraph(s: InboxConsumerSettings, fn: IFunction): GraphWidget {
  const minute = Duration.minutes(1);
  return graph(
    `${s.consumer}: function`,
    [fn.metricErrors({ period: minute }), fn.metricThrottles({ period: minute })],
    [fn.metricDuration({ period: minute, statistic: 'p99', label: 'duration p99 (ms)' })],
  );
}

function graph(title: string, left: Metric[], right: Metric[]): GraphWidget {
  return new GraphWidget({ title, left, right, width: 12 });
}

function mappingMetric(metricName: string, eventSourceMappingId: string): Metric {
  return new Metric({
    namespace: 'AWS/Lambda',
    metricName,
    dimensionsMap: { EventSourceMappingUUID: eventSourceMappingId },
    statistic: 'Sum',
    period: Duration.minutes(1),
  });
}

function deadLetterAgeAnnotation(s: InboxConsumerSettings): HorizontalAnnotation {
  return { value: deadLetterAgeThresholdSeconds(s), label: 'dead-letter age alarm' };
}

/**
 * The failed records of the last hours by the name of their error: the library logs each
 * failure (WARN or ERROR) with `error.name`, never the message's content.
 */
function failuresByErrorName(logGroupName: string, s: InboxConsumerSettings): LogQueryWidget {
  return new LogQueryWidget({
    title: `${s.consumer}: failures by error name`,
    logGroupNames: [logGroupName],
    queryLines: [
      'fields @timestamp, error.name',
      `filter ispresent(error.name) and consumer = '${s.consumer}'`,
      'stats count(*) as failures by error.name',
      'sort failures desc',
    ],
    width: 12,
  });
}

function commandsText(fn: IFunction, s: InboxConsumerSettings): TextWidget {
  const commands = operatorCommands(fn.functionName);
  return new TextWidget({
    markdown: [
      `### ${s.consumer}: commands`,
      `What is in the DLQ and why: \`${commands.dlqReport}\``,
      '',
      `Put back what can safely go back (a dry run; \`--apply\` to act): \`${commands.dlqRedrive}\``,
      '',
      `What happened to one message: \`${commands.message}\``,
    ].join('\n'),
    width: 12,
    height: 6,
  });
}
