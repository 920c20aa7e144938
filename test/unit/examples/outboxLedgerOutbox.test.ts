import { copyOf, fifoRecord, InboxTest } from 'sqs-inbox/testing';
import { describe, expect, it } from 'vitest';
import { loadExample } from './loadExample.js';

const NOTIFIER_QUEUE = 'https://sqs.us-east-1.amazonaws.com/123456789012/notifier';
const inbox = new InboxTest({
  consumer: 'ledger',
  tables: [{ tableName: 'accounts', partitionKey: 'accountId' }],
  outbox: true,
  // What the construct sets for `outbox: { destinations: { credited: notifier.queue } }`.
  destinations: { credited: NOTIFIER_QUEUE },
});
const ledger = await loadExample(inbox, () => import('../../../examples/outbox/ledgerOutbox.js'));

describe('the outbox publisher (examples/outbox/ledgerOutbox.ts)', () => {
  it('credits a payment and publishes its PaymentCredited once, a copy publishing nothing', async () => {
    const payment = fifoRecord(
      { eventId: 'e-1', accountId: 'acc-1', paymentId: 'pay-1', amountCents: 700 },
      { groupId: 'acc-1' },
    );
    await inbox.run(ledger, [payment]);
    await inbox.run(ledger, [copyOf(payment)]);
    expect(inbox.dynamo.item('accounts', { accountId: 'acc-1' })?.balanceCents).toBe(700);
    const messages = inbox.outboxItems().flatMap((item) => item.messages as unknown[]);
    expect(messages).toEqual([
      expect.objectContaining({
        destination: NOTIFIER_QUEUE,
        body: JSON.stringify({ type: 'PaymentCredited', paymentId: 'pay-1', amountCents: 700 }),
      }),
    ]);
  });
});
