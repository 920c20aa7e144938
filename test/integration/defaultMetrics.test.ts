import type { Context } from 'aws-lambda';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { InboxMetric } from '../../src/constants/index.js';
import {
  createBatchProcessor,
  type InboxOptions,
  type MessageHandler,
  TimerPurpose,
} from '../../src/index.js';
import { eventually } from '../support/eventually.js';
import { PaymentCaptured, payment, useLedger } from '../support/ledgerFixture.js';
import { manualRuntime, SETTLE_BOUND_MILLIS, settlesWithin } from '../support/manualRuntime.js';
import { countingMetrics, recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';

// MiniStack turns no embedded-metric-format line into a metric (ListMetrics stays empty), so
// these tests read the lines the processor writes, as CloudWatch Logs would receive them.
const { ledger } = useLedger();

const release: Array<() => void> = [];
afterAll(() => {
  for (const resolve of release) resolve();
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

/** The embedded-metric-format documents written on standard output while `run` runs. */
async function emfLinesOf(run: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk, ...rest) => {
    const text = String(chunk);
    if (text.includes('"_aws"')) {
      lines.push(text);
      return true;
    }
    return write(chunk, ...(rest as []));
  });
  await run();
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A construct-less processor of the test ledger, created after the environment is set. */
function processorOf(
  handler: MessageHandler<PaymentCaptured>,
  options: Partial<InboxOptions<typeof PaymentCaptured>> = {},
) {
  return createBatchProcessor(handler, {
    store: ledger.store,
    consumer: 'metrics',
    schema: PaymentCaptured,
    key: ({ body }) => body.eventId,
    ...options,
    observability: { logger: recordingLogger(), ...options.observability },
  });
}

describe('a processor without a metrics sink', () => {
  it('writes one embedded-metric-format line per batch under the namespace and service it is given', async () => {
    vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', 'SqsInboxTest');
    vi.stubEnv('POWERTOOLS_SERVICE_NAME', 'metrics');
    const accountId = `acc-emf-${Math.random()}`;
    const first = payment({ accountId });
    const processor = processorOf(ledger.applyPayment);

    const documents = await emfLinesOf(() =>
      processor.process(
        sqsEvent(sqsRecord(first), sqsRecord(first), sqsRecord(payment({ accountId }))),
      ),
    );

    expect(documents).toHaveLength(1);
    expect(documents[0]).toMatchObject({
      _aws: {
        CloudWatchMetrics: [{ Namespace: 'SqsInboxTest', Dimensions: [['service']] }],
      },
      service: 'metrics',
      [InboxMetric.Processed]: 2,
      [InboxMetric.Duplicates]: 1,
    });
    expect(documents[0]?.[InboxMetric.HandlerLatency]).toHaveLength(3);
    expect(await ledger.balanceOf(accountId)).toBe(2 * first.amountCents);
  });

  it('writes no metric line when no namespace is set', async () => {
    vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', '');
    const processor = processorOf(ledger.applyPayment);

    const documents = await emfLinesOf(() => processor.process(sqsEvent(sqsRecord(payment()))));

    expect(documents).toEqual([]);
  });

  it('writes its line when the batch answers at its deadline, the cut record counted failed', async () => {
    vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', 'SqsInboxTest');
    const accountId = `acc-emf-deadline-${Math.random()}`;
    const [hanging, healthy] = [payment({ accountId }), payment({ accountId })];
    const clock = manualRuntime();
    const processor = processorOf(
      async (message, tx) => {
        if (message.body.eventId === hanging.eventId) {
          await new Promise<void>((resolve) => release.push(resolve)); // never, during the test
        }
        await ledger.applyPayment(message, tx);
      },
      { runtime: clock.runtime, reliability: { deadlineMarginMillis: 500 } },
    );
    const context = { getRemainingTimeInMillis: () => 2_000 } as unknown as Context;

    const documents = await emfLinesOf(async () => {
      const answer = processor.process(sqsEvent(sqsRecord(hanging), sqsRecord(healthy)), context);
      const deadline = await settlesWithin(
        'the deadline timer',
        clock.started(TimerPurpose.Deadline),
      );
      await eventually(
        'the healthy record to commit',
        () => ledger.balanceOf(accountId),
        (cents) => cents === healthy.amountCents,
        SETTLE_BOUND_MILLIS,
      );
      clock.fire(deadline);
      await settlesWithin('the batch answering at its deadline', answer);
    });

    expect(documents).toHaveLength(1);
    expect(documents[0]).toMatchObject({ [InboxMetric.Processed]: 1, [InboxMetric.Failures]: 1 });
  });
});

describe('a processor given a metrics sink', () => {
  it('sends every metric there and writes no metric line of its own, namespace or not', async () => {
    vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', 'SqsInboxTest');
    const metrics = countingMetrics();
    const processor = processorOf(ledger.applyPayment, {
      observability: { logger: recordingLogger(), metrics },
    });

    const documents = await emfLinesOf(() => processor.process(sqsEvent(sqsRecord(payment()))));

    expect(documents).toEqual([]);
    expect(metrics.count(InboxMetric.Processed)).toBe(1);
  });
});
