import { InboxEnvironment } from 'sqs-inbox/constants';
import { copyOf, fifoRecord, InboxTest } from 'sqs-inbox/testing';
import { describe, expect, it, vi } from 'vitest';
import { loadExample } from './loadExample.js';

const CREDITS_QUEUE = 'https://sqs.us-east-1.amazonaws.com/123456789012/notifier';
const inbox = new InboxTest({
  consumer: 'ledger',
  tables: [{ tableName: 'accounts', partitionKey: 'accountId' }],
  outbox: true,
});
// What OutboxPipe.publisherEnvironment() adds to the ledger's function (examples/outbox/pipeApp.ts).
vi.stubEnv(InboxEnvironment.OutboxPipeDestination, CREDITS_QUEUE);
const ledger = await loadExample(inbox, () => import('../../../examples/outbox/ledgerPiped.js'));
vi.unstubAllEnvs();

describe('the publisher behind an OutboxPipe (examples/outbox/ledgerPiped.ts)', () => {
  it("credits a payment and publishes its PaymentCredited once, to the pipe's queue", async () => {
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
        destination: CREDITS_QUEUE,
        body: JSON.stringify({ type: 'PaymentCredited', paymentId: 'pay-1', amountCents: 700 }),
      }),
    ]);
  });

  it("fails its cold start without the pipe's variable, before any message is read", async () => {
    vi.resetModules();
    await expect(
      loadExample(inbox, () => import('../../../examples/outbox/ledgerPiped.js')),
    ).rejects.toThrow(InboxEnvironment.OutboxPipeDestination);
  });
});
