/**
 * The harness's invocations (src/testing/harness/Invocations.ts): one that died at its crash
 * point stops there, its requests to the tables and to the queues never answered.
 */
import { setTimeout as sleepRealMillis } from 'node:timers/promises';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { describe, expect, it } from 'vitest';
import { createBatchProcessor } from '../../../../src/index.js';
import { InboxTest, sqsRecord } from '../../../../src/testing/index.js';
import { latch } from '../../../support/latch.js';

interface Payment {
  readonly eventId: string;
}

/**
 * A schema whose refusal comes when `refuseAfter` settles (a slow, asynchronous check): the
 * record it refuses settles after the others.
 */
function slowToRefuse(refuseAfter: Promise<void>): StandardSchemaV1<unknown, Payment> {
  return {
    '~standard': {
      version: 1,
      vendor: 'test',
      validate: async (value) => {
        if (typeof (value as Payment).eventId === 'string') return { value: value as Payment };
        await refuseAfter;
        return { issues: [{ message: 'eventId: a string' }] };
      },
    },
  };
}

describe('Invocations', () => {
  it('answers no SQS request of an invocation that died: a record refused after the crash point is not dead-lettered', async () => {
    const inbox = new InboxTest({ consumer: 'ledger' });
    const [refusal, refuse] = latch();
    const processor = createBatchProcessor(
      async ({ step }) => {
        await step('charge', async () => {});
      },
      { ...inbox.options, schema: slowToRefuse(refusal), key: ({ body }) => body.eventId },
    );
    const run = await inbox.run(processor, [sqsRecord({ eventId: 'e-1' }), sqsRecord({})], {
      crash: { afterStep: 'charge' },
    });
    expect(run.crashed).toBe(true);
    // The refused record has no key, so nothing is read before its dead letter is sent: its send
    // is the dead invocation's first request after the crash.
    refuse();
    await sleepRealMillis(50);
    expect(inbox.deadLetters()).toEqual([]);
  });
});
