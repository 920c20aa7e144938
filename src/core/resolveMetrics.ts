import { createEmfMetrics } from './emfMetrics.js';
import { guardFlush, guardMetrics } from './guardSinks.js';
import type { InboxMetrics } from './types.js';

/**
 * The variables the default sink reads, named and read as Powertools Metrics reads them, so that
 * the library's metrics and a function's own land under one namespace and `service`.
 */
export const METRICS_ENVIRONMENT = {
  namespace: 'POWERTOOLS_METRICS_NAMESPACE',
  service: 'POWERTOOLS_SERVICE_NAME',
  disabled: 'POWERTOOLS_METRICS_DISABLED',
  dev: 'POWERTOOLS_DEV',
} as const;

/** Powertools' `service` when no name is set. */
const UNDEFINED_SERVICE = 'service_undefined';

/**
 * A processor's or relay's metrics: the sink its code adds to, and the flush that writes what
 * the default sink holds (nothing to do for a sink of the user's, which they publish).
 *
 * @example
 * ```ts
 * const { metrics, flushMetrics } = resolveMetrics(observability.metrics, Date.now);
 * ```
 */
export interface ResolvedMetrics {
  readonly metrics: InboxMetrics | undefined;
  readonly flushMetrics: () => void;
}

/**
 * The sink of `observability.metrics`: the one given (never the default beside it: a metric is
 * written once); none for `false`; otherwise the library's embedded-metric-format sink when
 * `POWERTOOLS_METRICS_NAMESPACE` is set (the constructs set it) and metrics are not disabled the
 * Powertools way (`POWERTOOLS_METRICS_DISABLED=true`, or `POWERTOOLS_DEV=true` without it);
 * none when no namespace is set, so a function that never asked for metrics writes no metric
 * lines and costs no custom metrics. Read when the processor is created.
 *
 * @example
 * ```ts
 * resolveMetrics(undefined, Date.now, { POWERTOOLS_METRICS_NAMESPACE: 'SqsInbox' }).metrics; // the EMF sink
 * ```
 */
export function resolveMetrics(
  given: InboxMetrics | false | undefined,
  now: () => number,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ResolvedMetrics {
  const none = () => {};
  if (given === false) return { metrics: undefined, flushMetrics: none };
  if (given !== undefined) return { metrics: guardMetrics(given), flushMetrics: none };
  const namespace = env[METRICS_ENVIRONMENT.namespace]?.trim();
  if (!namespace || metricsDisabled(env)) return { metrics: undefined, flushMetrics: none };
  const service = env[METRICS_ENVIRONMENT.service]?.trim() || UNDEFINED_SERVICE;
  const sink = createEmfMetrics({ namespace, service, now });
  return { metrics: guardMetrics(sink), flushMetrics: guardFlush(sink.flush) };
}

/** Powertools' rule: `POWERTOOLS_METRICS_DISABLED` decides when set, else `POWERTOOLS_DEV`. */
function metricsDisabled(env: Readonly<Record<string, string | undefined>>): boolean {
  const disabled = truth(env[METRICS_ENVIRONMENT.disabled]);
  return disabled ?? truth(env[METRICS_ENVIRONMENT.dev]) ?? false;
}

function truth(value: string | undefined): boolean | undefined {
  const text = value?.trim().toLowerCase();
  if (text === 'true' || text === '1' || text === 'yes' || text === 'on') return true;
  if (text === 'false' || text === '0' || text === 'no' || text === 'off') return false;
  return undefined;
}
