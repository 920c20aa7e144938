import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEmfMetrics, EMF_LIMITS } from '../../../src/core/emfMetrics.js';
import { METRICS_ENVIRONMENT, resolveMetrics } from '../../../src/core/resolveMetrics.js';

afterEach(() => vi.restoreAllMocks());

interface Directive {
  Namespace: string;
  Dimensions: string[][];
  Metrics: Array<{ Name: string; Unit: string }>;
}
type EmfDocument = Record<string, unknown> & {
  _aws: { Timestamp: number; CloudWatchMetrics: Directive[] };
};

/** A sink writing to an array, its documents parsed back. */
function recordedSink() {
  const lines: string[] = [];
  const sink = createEmfMetrics({
    namespace: 'SqsInbox',
    service: 'ledger',
    now: () => 1_700_000_000_000,
    write: (line) => lines.push(line),
  });
  const documents = () => lines.map((line) => JSON.parse(line) as EmfDocument);
  return { sink, lines, documents };
}

/**
 * The specification's rules for one document: the metadata object with a millisecond
 * timestamp and directives; each directive's namespace, dimension sets and metric definitions;
 * every dimension and metric it names present as a member of the root; at most 100 metrics.
 */
function expectValidDocument(document: EmfDocument): void {
  const { Timestamp, CloudWatchMetrics } = document._aws;
  expect(Number.isInteger(Timestamp)).toBe(true);
  expect(CloudWatchMetrics.length).toBeGreaterThan(0);
  for (const directive of CloudWatchMetrics) {
    expect(typeof directive.Namespace).toBe('string');
    expect(directive.Metrics.length).toBeLessThanOrEqual(EMF_LIMITS.metricsPerDocument);
    for (const set of directive.Dimensions) {
      for (const name of set) expect(typeof document[name]).toBe('string');
    }
    for (const { Name, Unit } of directive.Metrics) {
      expect(['Count', 'Milliseconds']).toContain(Unit);
      const value = document[Name];
      const values = Array.isArray(value) ? value : [value];
      expect(values.length).toBeLessThanOrEqual(EMF_LIMITS.valuesPerMetric);
      for (const each of values) expect(typeof each).toBe('number');
    }
  }
}

describe('the embedded-metric-format sink', () => {
  it('writes one line per flush holding every metric added since the last, counts summed and latencies value by value', () => {
    const { sink, lines, documents } = recordedSink();
    sink.addMetric('InboxProcessed', 'Count', 1);
    sink.addMetric('InboxProcessed', 'Count', 1);
    sink.addMetric('InboxFailures', 'Count', 3);
    sink.addMetric('InboxHandlerLatency', 'Milliseconds', 12);
    sink.addMetric('InboxHandlerLatency', 'Milliseconds', 40);

    sink.flush();

    expect(lines).toHaveLength(1);
    expect(lines[0]?.endsWith('\n')).toBe(true);
    const [document] = documents();
    expect(document).toEqual({
      _aws: {
        Timestamp: 1_700_000_000_000,
        CloudWatchMetrics: [
          {
            Namespace: 'SqsInbox',
            Dimensions: [['service']],
            Metrics: [
              { Name: 'InboxProcessed', Unit: 'Count' },
              { Name: 'InboxFailures', Unit: 'Count' },
              { Name: 'InboxHandlerLatency', Unit: 'Milliseconds' },
            ],
          },
        ],
      },
      service: 'ledger',
      InboxProcessed: 2,
      InboxFailures: 3,
      InboxHandlerLatency: [12, 40],
    });
    expectValidDocument(document as EmfDocument);
  });

  it('writes nothing when nothing was added, and forgets what it flushed', () => {
    const { sink, lines } = recordedSink();
    sink.flush();
    sink.addMetric('InboxProcessed', 'Count', 1);
    sink.flush();
    sink.flush();

    expect(lines).toHaveLength(1);
  });

  it('splits a metric of more than 100 values over as many documents, each within the limits', () => {
    const { sink, documents } = recordedSink();
    for (let n = 0; n < 250; n++) sink.addMetric('InboxHandlerLatency', 'Milliseconds', n);
    sink.addMetric('InboxProcessed', 'Count', 250);

    sink.flush();

    const written = documents();
    expect(written).toHaveLength(3);
    for (const document of written) expectValidDocument(document);
    const latencies = written.flatMap((document) => document.InboxHandlerLatency as number[]);
    expect(latencies).toEqual(Array.from({ length: 250 }, (_, n) => n));
    expect(written.map((document) => document.InboxProcessed)).toEqual([250, undefined, undefined]);
  });

  it('keeps at most 100 metric definitions in one document', () => {
    const { sink, documents } = recordedSink();
    for (let n = 0; n < 130; n++) sink.addMetric(`Metric${n}`, 'Count', 1);

    sink.flush();

    const written = documents();
    expect(written.map((d) => d._aws.CloudWatchMetrics[0]?.Metrics.length)).toEqual([100, 30]);
    for (const document of written) expectValidDocument(document);
  });

  it('looks up standard output at its first write, not when it is created', () => {
    const sink = createEmfMetrics({ namespace: 'N', service: 's', now: () => 0 });
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    sink.addMetric('InboxProcessed', 'Count', 1);

    sink.flush();

    expect(stdout).toHaveBeenCalledTimes(1);
    expect(String(stdout.mock.calls[0]?.[0])).toContain('"InboxProcessed":1');
  });
});

describe('the default metrics sink', () => {
  const namespace = { [METRICS_ENVIRONMENT.namespace]: 'SqsInbox' };

  it('is none when no namespace is set: a function that never asked for metrics writes none', () => {
    expect(resolveMetrics(undefined, Date.now, {}).metrics).toBeUndefined();
  });

  it('is the EMF sink under the namespace and service Powertools reads', () => {
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const { metrics, flushMetrics } = resolveMetrics(undefined, () => 5, {
      ...namespace,
      [METRICS_ENVIRONMENT.service]: 'ledger',
    });
    metrics?.addMetric('InboxProcessed', 'Count', 1);
    flushMetrics();

    const document = JSON.parse(String(stdout.mock.calls[0]?.[0])) as EmfDocument;
    expect(document._aws.CloudWatchMetrics[0]?.Namespace).toBe('SqsInbox');
    expect(document.service).toBe('ledger');
  });

  it("names the service as Powertools does when none is set ('service_undefined')", () => {
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const { metrics, flushMetrics } = resolveMetrics(undefined, () => 5, namespace);
    metrics?.addMetric('InboxProcessed', 'Count', 1);
    flushMetrics();

    expect(JSON.parse(String(stdout.mock.calls[0]?.[0])).service).toBe('service_undefined');
  });

  it.each([[{ [METRICS_ENVIRONMENT.disabled]: 'true' }], [{ [METRICS_ENVIRONMENT.dev]: 'true' }]])(
    'is none when Powertools metrics are disabled (%o)',
    (disabled) => {
      expect(resolveMetrics(undefined, Date.now, { ...namespace, ...disabled }).metrics).toBe(
        undefined,
      );
    },
  );

  it('is on in dev mode when POWERTOOLS_METRICS_DISABLED says false, which takes precedence', () => {
    const env = {
      ...namespace,
      [METRICS_ENVIRONMENT.dev]: 'true',
      [METRICS_ENVIRONMENT.disabled]: 'false',
    };
    expect(resolveMetrics(undefined, Date.now, env).metrics).toBeDefined();
  });

  it('is never used beside a sink of the user: theirs alone gets each metric, and flushing writes nothing', () => {
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const added: string[] = [];
    const { metrics, flushMetrics } = resolveMetrics(
      { addMetric: (name) => added.push(name) },
      Date.now,
      namespace,
    );
    metrics?.addMetric('InboxProcessed', 'Count', 1);
    flushMetrics();

    expect(added).toEqual(['InboxProcessed']);
    expect(stdout).not.toHaveBeenCalled();
  });

  it('is none for false, whatever the environment', () => {
    expect(resolveMetrics(false, Date.now, namespace).metrics).toBeUndefined();
  });

  it('never fails the batch when writing fails: the failure is reported on stderr', () => {
    vi.spyOn(process.stdout, 'write').mockImplementation(() => {
      throw new Error('EPIPE');
    });
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const { metrics, flushMetrics } = resolveMetrics(undefined, Date.now, namespace);
    metrics?.addMetric('InboxProcessed', 'Count', 1);

    expect(() => flushMetrics()).not.toThrow();
    expect(String(stderr.mock.calls[0]?.[0])).toContain('the metrics sink threw writing');
  });
});
