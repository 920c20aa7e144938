import type { InboxMetrics } from './types.js';

/**
 * The most metric definitions in one document's directive, and the most values of one metric in
 * one document: the CloudWatch embedded metric format's limits (Specification: Embedded metric
 * format, https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html).
 */
export const EMF_LIMITS = { metricsPerDocument: 100, valuesPerMetric: 100 } as const;

/**
 * The dimension every metric of the sink carries, named and valued as Powertools Metrics names
 * it (`service`, from `POWERTOOLS_SERVICE_NAME`), so that one dashboard reads both.
 */
export const SERVICE_DIMENSION = 'service';

/**
 * Where the sink writes, and what it writes under.
 *
 * @example
 * ```ts
 * const settings: EmfMetricsSettings = { namespace: 'SqsInbox', service: 'ledger', now: Date.now };
 * ```
 */
export interface EmfMetricsSettings {
  readonly namespace: string;
  /** The value of the `service` dimension. */
  readonly service: string;
  /** The clock of each document's `Timestamp`, epoch milliseconds. */
  readonly now: () => number;
  /**
   * Writes one document (a line, its newline included); default the process's standard output,
   * looked up at the first write, never at import. Lambda sends that to CloudWatch Logs as it is,
   * where its JSON log format would wrap a `console.log` line and hide the document.
   */
  readonly write?: (line: string) => void;
}

/**
 * A metrics sink of the library's own that holds what it is given until `flush`.
 *
 * @example
 * ```ts
 * const metrics: BufferedMetrics = createEmfMetrics(settings);
 * metrics.addMetric('InboxProcessed', 'Count', 1);
 * metrics.flush();
 * ```
 */
export interface BufferedMetrics extends InboxMetrics {
  /** Writes what was added since the last flush (nothing when nothing was), and forgets it. */
  flush(): void;
}

type Unit = Parameters<InboxMetrics['addMetric']>[1];

/**
 * A sink that writes CloudWatch embedded metric format documents: one line per flush holding
 * every metric added since the last, counts summed to one value, latencies kept value by value
 * (a percentile needs each), and as many further lines as the format's limits require
 * ({@link EMF_LIMITS}). Each metric has the one dimension `service`. CloudWatch Logs turns the
 * lines into metrics; no API call is made and no permission needed.
 *
 * @example
 * ```ts
 * const metrics = createEmfMetrics({ namespace: 'SqsInbox', service: 'ledger', now: Date.now });
 * metrics.addMetric('InboxProcessed', 'Count', 1);
 * metrics.flush(); // {"_aws":{"Timestamp":…,"CloudWatchMetrics":[…]},"service":"ledger","InboxProcessed":1}
 * ```
 */
export function createEmfMetrics(settings: EmfMetricsSettings): BufferedMetrics {
  let held = new Map<string, { readonly unit: Unit; readonly values: number[] }>();
  let write = settings.write;
  return {
    addMetric(name, unit, value) {
      if (!Number.isFinite(value)) return;
      const metric = held.get(name) ?? { unit, values: [] };
      held.set(name, metric);
      if (unit === 'Count' && metric.values.length > 0)
        metric.values[0] = (metric.values[0] ?? 0) + value;
      else metric.values.push(value);
    },
    flush() {
      const metrics = held;
      held = new Map();
      if (metrics.size === 0) return;
      write ??= (line) => process.stdout.write(line);
      for (const document of emfDocuments(metrics, settings))
        write(`${JSON.stringify(document)}\n`);
    },
  };
}

/** The documents for the held metrics: each within the directive's and the values' limits. */
function emfDocuments(
  metrics: ReadonlyMap<string, { readonly unit: Unit; readonly values: readonly number[] }>,
  settings: EmfMetricsSettings,
): Record<string, unknown>[] {
  const { metricsPerDocument, valuesPerMetric } = EMF_LIMITS;
  const entries = [...metrics];
  const rounds = Math.max(
    ...entries.map(([, { values }]) => Math.ceil(values.length / valuesPerMetric)),
  );
  const documents: Record<string, unknown>[] = [];
  const timestamp = settings.now();
  for (let round = 0; round < rounds; round++) {
    const slice = entries
      .map(([name, { unit, values }]) => ({
        name,
        unit,
        values: values.slice(round * valuesPerMetric, (round + 1) * valuesPerMetric),
      }))
      .filter(({ values }) => values.length > 0);
    for (let start = 0; start < slice.length; start += metricsPerDocument) {
      const part = slice.slice(start, start + metricsPerDocument);
      documents.push({
        _aws: {
          Timestamp: timestamp,
          CloudWatchMetrics: [
            {
              Namespace: settings.namespace,
              Dimensions: [[SERVICE_DIMENSION]],
              Metrics: part.map(({ name, unit }) => ({ Name: name, Unit: unit })),
            },
          ],
        },
        [SERVICE_DIMENSION]: settings.service,
        ...Object.fromEntries(
          part.map(({ name, values }) => [name, values.length === 1 ? values[0] : values]),
        ),
      });
    }
  }
  return documents;
}
