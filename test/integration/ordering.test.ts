import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createBatchProcessor, type MessageHandler, RecordStatus } from '../../src/index.js';
import { latch } from '../support/latch.js';
import { PaymentCaptured, payment, useLedger } from '../support/ledgerFixture.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';

const { ledger } = useLedger();

/**
 * How long a handler waits for the others the processor should run beside it. Only a processor
 * that serialises what it should run at once meets it; generous, so that a machine shared with
 * other heavy jobs (a claim taking seconds) never does while the processor behaves. Not a speed
 * target.
 */
const OVERLAP_BOUND_MILLIS = 10_000;

/**
 * Wraps the ledger handler to record when each message starts and ends, and how many run at once.
 * Each handler stays in flight until `overlap` handlers have been at once (or the bound passed),
 * then 30 ms more: a window for one the processor should not have started yet to show.
 */
function tracing(fail: (body: PaymentCaptured) => boolean = () => false, overlap = 1) {
  const timeline: Array<{ event: 'start' | 'end'; paymentId: string }> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const [overlapping, overlapped] = latch();
  let bound: Promise<void> | undefined;
  const handler: MessageHandler<PaymentCaptured> = async (message, tx) => {
    timeline.push({ event: 'start', paymentId: message.body.paymentId });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    if (maxInFlight >= overlap) overlapped();
    bound ??= sleep(OVERLAP_BOUND_MILLIS, undefined, { ref: false });
    await Promise.race([overlapping, bound]);
    await sleep(30);
    inFlight--;
    timeline.push({ event: 'end', paymentId: message.body.paymentId });
    if (fail(message.body)) throw new Error(`payment ${message.body.paymentId} failed`);
    await ledger.applyPayment(message, tx);
  };
  return { handler, timeline, maxInFlight: () => maxInFlight };
}

const options = (concurrency: number) => ({
  store: ledger.store,
  consumer: 'ordering',
  schema: PaymentCaptured,
  key: ({ body }: { body: PaymentCaptured }) => body.eventId,
  performance: { concurrency },
  observability: { logger: recordingLogger() },
});

describe('FIFO queues', () => {
  it('runs each message group strictly in order and other groups concurrently', async () => {
    const a = [1, 2, 3].map((n) => payment({ accountId: 'fifo-a', paymentId: `a${n}` }));
    const b = [1, 2].map((n) => payment({ accountId: 'fifo-b', paymentId: `b${n}` }));
    const records = [a[0], b[0], a[1], b[1], a[2]].map((body) =>
      sqsRecord(body, { fifo: { groupId: body?.accountId ?? '' } }),
    );
    const trace = tracing(undefined, 2);

    const response = await createBatchProcessor(trace.handler, options(10)).process(
      sqsEvent(...records),
    );

    expect(response.batchItemFailures).toEqual([]);
    const groupA = trace.timeline.filter((step) => step.paymentId.startsWith('a'));
    expect(groupA).toEqual(
      ['a1', 'a2', 'a3'].flatMap((paymentId) => [
        { event: 'start', paymentId },
        { event: 'end', paymentId },
      ]),
    );
    expect(trace.maxInFlight()).toBe(2);
  });

  it('reports the rest of a group failed without running it after a failure, and other groups go on', async () => {
    const a = [1, 2, 3].map((n) => payment({ accountId: 'fifo-fail-a', paymentId: `fa${n}` }));
    const b = [1, 2].map((n) => payment({ accountId: 'fifo-fail-b', paymentId: `fb${n}` }));
    const bodies = [a[0], b[0], a[1], b[1], a[2]];
    const records = bodies.map((body) =>
      sqsRecord(body, { fifo: { groupId: body?.accountId ?? '' } }),
    );
    const trace = tracing((body) => body.paymentId === 'fa2');

    const outcomes = await createBatchProcessor(trace.handler, options(10)).processRecords(
      sqsEvent(...records),
    );

    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      RecordStatus.Processed,
      RecordStatus.Processed,
      RecordStatus.Failed,
      RecordStatus.Processed,
      RecordStatus.Skipped,
    ]);
    expect(trace.timeline.some((step) => step.paymentId === 'fa3')).toBe(false);
    expect(await ledger.balanceOf('fifo-fail-a')).toBe(a[0]?.amountCents);
    expect(await ledger.balanceOf('fifo-fail-b')).toBe((b[0]?.amountCents ?? 0) * 2);
  });

  it('lists the failed record and the skipped rest of its group in batchItemFailures', async () => {
    const bodies = [1, 2, 3].map((n) =>
      payment({ accountId: 'fifo-response', paymentId: `fr${n}` }),
    );
    const records = bodies.map((body) => sqsRecord(body, { fifo: { groupId: 'fifo-response' } }));
    const trace = tracing((body) => body.paymentId === 'fr2');

    const response = await createBatchProcessor(trace.handler, options(10)).process(
      sqsEvent(...records),
    );

    expect(response.batchItemFailures).toEqual([
      { itemIdentifier: records[1]?.messageId },
      { itemIdentifier: records[2]?.messageId },
    ]);
  });
});

describe('standard queues', () => {
  it('does not serialise records that carry a MessageGroupId on a standard (fair) queue', async () => {
    const bodies = Array.from({ length: 4 }, () => payment({ accountId: 'fair-queue' }));
    const records = bodies.map((body) => ({
      ...sqsRecord(body, { fifo: { groupId: 'tenant-1' } }),
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:orders',
    }));
    const trace = tracing(undefined, 4);

    await createBatchProcessor(trace.handler, options(4)).process(sqsEvent(...records));

    expect(trace.maxInFlight()).toBe(4);
  });

  it.each([1, 4])('runs records concurrently up to concurrency %i', async (concurrency) => {
    const bodies = Array.from({ length: 12 }, () => payment({ accountId: `std-${concurrency}` }));
    const trace = tracing(undefined, concurrency);

    const response = await createBatchProcessor(trace.handler, options(concurrency)).process(
      sqsEvent(...bodies.map((body) => sqsRecord(body))),
    );

    expect(response.batchItemFailures).toEqual([]);
    expect(trace.maxInFlight()).toBe(concurrency);
    expect(await ledger.balanceOf(`std-${concurrency}`)).toBe(12 * (bodies[0]?.amountCents ?? 0));
  });
});
