import { copyOf, InboxTest, outboxRecord } from 'sqs-inbox/testing';
import { describe, expect, it } from 'vitest';
import { loadExample } from './loadExample.js';

const inbox = new InboxTest({
  consumer: 'notifier',
  tables: [{ tableName: 'notices', partitionKey: 'paymentId' }],
  // What the construct sets for `sources: [QueueSource.outbox()]`.
  sources: ['outbox'],
});
const notifier = await loadExample(inbox, () => import('../../../examples/outbox/notifier.js'));

describe('the outbox consumer (examples/outbox/notifier.ts)', () => {
  it('writes one notice per outbox message, a resend of it being a duplicate', async () => {
    const credited = outboxRecord(
      { type: 'PaymentCredited', paymentId: 'pay-1', amountCents: 700 },
      { outboxId: 'a1b2' },
    );
    await inbox.run(notifier, [credited]);
    const run = await inbox.run(notifier, [copyOf(credited)]);
    expect(run.records.map((record) => record.status)).toEqual(['duplicate']);
    expect(inbox.dynamo.items('notices')).toEqual([{ paymentId: 'pay-1', amountCents: 700 }]);
  });
});
