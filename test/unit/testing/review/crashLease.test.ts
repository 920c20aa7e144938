/**
 * Review of issue 33: the README's "Crash points" says to advance `inbox.clock` "past the lease
 * (60 s without a Lambda `context`)", and TestClock's example reads
 * `await clock.advanceMillis(60_000); // a lease lapses`. The entry's `leaseUntilMillis` is 65 s
 * on (the 60 s lease plus `LEASE_LIMITS.clockSkewMillis`), so a redelivery just past 60 s meets
 * a `LeaseHeldError` and fails again.
 */
import { describe, expect, it } from 'vitest';
import { createBatchProcessor } from '../../../../src/index.js';
import { InboxTest, redeliveryOf, sqsRecord } from '../../../../src/testing/index.js';

describe('a crash point, as the README tells it', () => {
  it('processes a redelivery once the clock is past the 60 s lease the README states', async () => {
    const inbox = new InboxTest({ consumer: 'ledger' });
    const texts: string[] = [];
    const processor = createBatchProcessor(
      async ({ step }) => {
        await step('notify', () => void texts.push('booked'));
      },
      { ...inbox.options, key: ({ body }) => (body as { eventId: string }).eventId },
    );
    const record = sqsRecord({ eventId: 't-1' });
    await inbox.run(processor, [record], { crash: { afterStep: 'notify' } });
    await inbox.clock.advanceMillis(60_000 + 1);
    const run = await inbox.run(processor, [redeliveryOf(record)]);
    expect(run.records[0]).toMatchObject({ status: 'processed', stepsReplayed: ['notify'] });
  });
});
