/**
 * The harness's record of the steps a record ran or replayed (src/testing/harness/RecordingTracer.ts),
 * read from the library's step spans: a step counts as run once its function started.
 */
import { describe, expect, it } from 'vitest';
import { LeaseHeldError } from '../../../../src/errors.js';
import { createBatchProcessor, type MessageHandler } from '../../../../src/index.js';
import { copyOf, InboxTest, sqsRecord } from '../../../../src/testing/index.js';

function charging() {
  const inbox = new InboxTest({ consumer: 'ledger' });
  const charges: string[] = [];
  const handler: MessageHandler<unknown> = async ({ step }) => {
    await step('charge', async ({ idempotencyKey }) => {
      charges.push(idempotencyKey);
    });
  };
  const processor = createBatchProcessor(handler, {
    ...inbox.options,
    key: ({ body }) => (body as { eventId: string }).eventId,
  });
  return { inbox, processor, charges };
}

describe('RecordingTracer', () => {
  it('records a step refused by another attempt’s live lease as neither run nor replayed', async () => {
    const { inbox, processor, charges } = charging();
    const record = sqsRecord({ eventId: 'e-1' });
    await inbox.run(processor, [record], { crash: { afterStep: 'charge' } });

    const copy = await inbox.run(processor, [copyOf(record)]);

    expect(copy.records[0]?.error).toBeInstanceOf(LeaseHeldError);
    expect(copy.records[0]).toMatchObject({ stepsRun: [], stepsReplayed: [] });
    expect(charges).toHaveLength(1);
  });

  it('records a step whose function ran as run', async () => {
    const { inbox, processor } = charging();

    const run = await inbox.run(processor, [sqsRecord({ eventId: 'e-1' })]);

    expect(run.records[0]).toMatchObject({
      status: 'processed',
      stepsRun: ['charge'],
      stepsReplayed: [],
    });
  });
});
