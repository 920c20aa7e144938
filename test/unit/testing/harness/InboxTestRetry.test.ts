/**
 * `InboxTest` with the processor's `retry`: the construct's default in `options` and
 * `environment`, the visibility changes reaching the in-memory queues the run delivered from,
 * and each record's `retryDelaySeconds`.
 */
import { describe, expect, it } from 'vitest';
import { LeaseHeldError } from '../../../../src/errors.js';
import {
  createBatchProcessor,
  inboxConfigFromEnvironment,
  type MessageHandler,
} from '../../../../src/index.js';
import {
  copyOf,
  fifoRecord,
  InboxTest,
  type InboxTestOptions,
  redeliveryOf,
  sqsRecord,
  TestClock,
} from '../../../../src/testing/index.js';

const BACKOFF = { firstDelaySeconds: 5, maxDelaySeconds: 60 };
const ORDERS_URL = 'https://sqs.us-east-1.amazonaws.com/123456789012/orders';

/** A consumer whose `charge` step records each run, and that fails a body with `fail`. */
function consumer(options: InboxTestOptions = {}) {
  const inbox = new InboxTest(options);
  const charges: string[] = [];
  const handler: MessageHandler<unknown> = async (message) => {
    await message.step('charge', async () => {
      charges.push(message.messageId);
    });
    if ((message.body as { fail?: boolean }).fail) throw new Error('the downstream is down');
  };
  const key = ({ body }: { body: unknown }) => (body as { eventId: string }).eventId;
  const processor = createBatchProcessor(handler, { ...inbox.options, key });
  return { inbox, processor, charges, handler, key };
}

/** The library's warning that SQS refused visibility changes (the records keep the queue's timeout). */
const refusedChanges = (inbox: InboxTest) =>
  inbox.logs.filter((line) => line.message.startsWith('visibility changes failed'));

describe('InboxTest with retry', () => {
  it('gives a copy refused by a live lease the lease remaining plus 2 s, after which a redelivery takes the lease over', async () => {
    const { inbox, processor, charges } = consumer();
    const startMillis = inbox.clock.now();
    const record = sqsRecord({ eventId: 'e-1' });
    await inbox.run(processor, [record], { crash: { afterStep: 'charge' } });
    await inbox.clock.advanceMillis(10_500);
    const copy = copyOf(record);

    const held = await inbox.run(processor, [copy]);

    const error = held.records[0]?.error as LeaseHeldError;
    expect(error).toBeInstanceOf(LeaseHeldError);
    // Without a context: a 60 s lease and 5 s for clock skew from the crash; 54.5 s of it left.
    expect(error.leaseUntilMillis).toBe(startMillis + 65_000);
    expect(held.records[0]?.retryDelaySeconds).toBe(55 + 2);
    expect(inbox.queues.visibilityChanges()).toMatchObject([
      { queueUrl: ORDERS_URL, messageId: copy.messageId, visibilityTimeoutSeconds: 57 },
    ]);
    expect(refusedChanges(inbox)).toEqual([]);

    await inbox.clock.advanceMillis(57_000);
    const again = await inbox.run(processor, [redeliveryOf(copy)]);
    expect(again.records[0]).toMatchObject({ status: 'processed', stepsReplayed: ['charge'] });
    expect(again.records[0]).not.toHaveProperty('retryDelaySeconds');
    expect(charges).toHaveLength(1);
  });

  it('gives a handler module built from inboxConfig() the retry the construct writes by default', async () => {
    const { inbox, handler, key } = consumer();
    const createModule = (config = inboxConfigFromEnvironment()) =>
      createBatchProcessor(handler, { ...config.options, key });
    const processor = createModule(inbox.inboxConfig());
    const record = sqsRecord({ eventId: 'e-1' });
    await inbox.run(processor, [record], { crash: { afterStep: 'charge' } });

    const held = await inbox.run(processor, [copyOf(record)]);

    expect(inbox.environment).toMatchObject({ INBOX_RETRY_LEASE_HELD_MARGIN_SECONDS: '2' });
    expect(held.records[0]?.retryDelaySeconds).toBe(65 + 2);
    expect(refusedChanges(inbox)).toEqual([]);
  });

  it('delays a retryable failure by a draw of the harness’s random within [1, the backoff’s step], the same for the same seed', async () => {
    const delays = async (seed: number) => {
      const clock = new TestClock({ seed });
      const { inbox, processor } = consumer({
        retry: { backoff: BACKOFF },
        maxReceiveCount: 10,
        clock,
      });
      // Receive 3: a step of min(60, 5 × 2²) = 20 s; receive 9 (not the last): the 60 s cap.
      const third = Array.from({ length: 8 }, (_, n) =>
        sqsRecord({ eventId: `e-${n}`, fail: true }, { receiveCount: 3 }),
      );
      const ninth = sqsRecord({ eventId: 'e-9', fail: true }, { receiveCount: 9 });
      const run = await inbox.run(processor, [...third, ninth]);
      expect(run.failedMessageIds).toHaveLength(9);
      expect(refusedChanges(inbox)).toEqual([]);
      return run.records.map((record) => record.retryDelaySeconds);
    };

    const first = await delays(7);
    for (const delay of first.slice(0, 8)) expect(delay).toBeGreaterThanOrEqual(1);
    for (const delay of first.slice(0, 8)) expect(delay).toBeLessThanOrEqual(20);
    expect(first[8]).toBeGreaterThanOrEqual(1);
    expect(first[8]).toBeLessThanOrEqual(60);
    expect(new Set(first.slice(0, 8)).size).toBeGreaterThan(1);
    expect(await delays(7)).toEqual(first);
    expect(await delays(8)).not.toEqual(first);
  });

  it('FIFO: delays a failed head by its backoff and releases the records skipped behind it with 0, other groups untouched', async () => {
    const { inbox, processor } = consumer({ retry: { backoff: BACKOFF } });
    const run = await inbox.run(processor, [
      fifoRecord({ eventId: 'a-1', fail: true }, { groupId: 'a' }),
      fifoRecord({ eventId: 'b-1' }, { groupId: 'b' }),
      fifoRecord({ eventId: 'a-2' }, { groupId: 'a' }),
      fifoRecord({ eventId: 'a-3' }, { groupId: 'a' }),
    ]);

    expect(run.records.map((record) => record.status)).toEqual([
      'failed',
      'processed',
      'skipped',
      'skipped',
    ]);
    const [head, other, ...followers] = run.records;
    expect(head?.retryDelaySeconds).toBeGreaterThanOrEqual(1);
    expect(head?.retryDelaySeconds).toBeLessThanOrEqual(5);
    expect(other).not.toHaveProperty('retryDelaySeconds');
    expect(followers.map((record) => record.retryDelaySeconds)).toEqual([0, 0]);
    expect(refusedChanges(inbox)).toEqual([]);
  });

  it('counts a change refused for a record delivered again meanwhile (a stale handle) as failed, reporting no delay', async () => {
    const inbox = new InboxTest({ retry: { backoff: BACKOFF } });
    const record = sqsRecord({ eventId: 'e-1' });
    const processor = createBatchProcessor(
      async () => {
        // Its visibility timeout ran out mid-batch: SQS delivered it to another invocation.
        inbox.queues.deliver([redeliveryOf(record)]);
        throw new Error('the downstream is down');
      },
      { ...inbox.options, key: ({ messageId }) => messageId },
    );

    const run = await inbox.run(processor, [record]);

    expect(run.records[0]?.status).toBe('failed');
    expect(run.records[0]).not.toHaveProperty('retryDelaySeconds');
    expect(inbox.queues.visibilityChanges()).toEqual([]);
    expect(refusedChanges(inbox)).toMatchObject([
      { extra: { failed: 1, codes: { InvalidParameterValue: 1 } } },
    ]);
  });

  it('changes no visibility with retry: false, and writes no INBOX_RETRY_* variable', async () => {
    const { inbox, processor } = consumer({ retry: false });
    const record = sqsRecord({ eventId: 'e-1' });
    await inbox.run(processor, [record], { crash: { afterStep: 'charge' } });

    const held = await inbox.run(processor, [copyOf(record)]);

    expect(held.records[0]?.error).toBeInstanceOf(LeaseHeldError);
    expect(held.records[0]).not.toHaveProperty('retryDelaySeconds');
    expect(inbox.queues.visibilityChanges()).toEqual([]);
    expect(inbox.options).not.toHaveProperty('retry');
    expect(
      Object.keys(inbox.environment).filter((name) => name.startsWith('INBOX_RETRY_')),
    ).toEqual([]);
  });
});
