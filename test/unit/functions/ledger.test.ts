import type { SQSRecord } from 'aws-lambda';
import { copyOf, fifoRecord, InboxTest, lambdaContext, sqsEvent } from 'sqs-inbox/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ledgerConsumer } from '../../../functions/ledger/paymentCaptured.js';
import {
  createConsumerProcessor,
  createInboxHandler,
} from '../../../functions/shared/createInboxHandler.js';

const NOTIFIER_QUEUE = 'https://sqs.us-east-1.amazonaws.com/123456789012/notifier.fifo';

/** The ledger as the reference stack deploys it, on the kit: its tables, its outbox to the notifier. */
function ledgerOnTheKit() {
  const inbox = new InboxTest({
    consumer: 'ledger',
    tables: [
      { tableName: 'accounts', partitionKey: 'accountId' },
      { tableName: 'ledgerEntries', partitionKey: 'paymentId' },
    ],
    outbox: true,
    destinations: { credited: NOTIFIER_QUEUE },
  });
  const settings = {
    inbox: inbox.inboxConfig(),
    client: inbox.dynamo.documentClient,
  };
  const account = (accountId: string) => inbox.dynamo.item('accounts', { accountId });
  return { inbox, settings, ledger: createConsumerProcessor(ledgerConsumer, settings), account };
}

let payments = 0;
function payment(accountId: string, overrides: Record<string, unknown> = {}) {
  payments += 1;
  const body = {
    eventId: `evt-${payments}`,
    accountId,
    paymentId: `pay-${payments}`,
    amountCents: 1999,
    currency: 'EUR',
    ...overrides,
  };
  return fifoRecord(body, { groupId: accountId });
}

/** Another event for a payment already recorded: the entry's condition fails, SQS retries it. */
function anotherEventFor(record: SQSRecord): SQSRecord {
  const body = JSON.parse(record.body) as { accountId: string };
  return fifoRecord({ ...body, eventId: `${record.messageId}-again` }, { groupId: body.accountId });
}

describe('the reference ledger (functions/ledger) on sqs-inbox/testing', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('credits a payment and writes its ledger entry once, a copy of it being a duplicate', async () => {
    const { inbox, ledger, account } = ledgerOnTheKit();
    const record = payment('acc-1');
    await inbox.run(ledger, [record]);
    const run = await inbox.run(ledger, [copyOf(record)]);
    expect(run.records.map((outcome) => outcome.status)).toEqual(['duplicate']);
    expect(account('acc-1')).toEqual({ accountId: 'acc-1', balanceCents: 1999, currency: 'EUR' });
    expect(inbox.dynamo.items('ledgerEntries')).toEqual([
      expect.objectContaining({ paymentId: JSON.parse(record.body).paymentId, amountCents: 1999 }),
    ]);
  });

  it('skips the rest of an account group behind a failed payment, and goes on with other accounts', async () => {
    const { inbox, ledger, account } = ledgerOnTheKit();
    const first = payment('acc-1');
    const conflicting = anotherEventFor(first);
    const run = await inbox.run(ledger, [first, conflicting, payment('acc-1'), payment('acc-2')]);
    expect(run.records.map((outcome) => outcome.status)).toEqual([
      'processed',
      'failed',
      'skipped',
      'processed',
    ]);
    expect(run.failedMessageIds).toEqual(run.records.slice(1, 3).map((r) => r.messageId));
    expect(account('acc-1')?.balanceCents).toBe(1999);
    expect(account('acc-2')?.balanceCents).toBe(1999);
  });

  it('dead-letters a payment in another currency than its account, with its reason', async () => {
    const { inbox, ledger, account } = ledgerOnTheKit();
    await inbox.run(ledger, [payment('acc-1')]);
    const run = await inbox.run(ledger, [payment('acc-1', { currency: 'USD' })]);
    expect(run.records[0]?.status).toBe('deadLettered');
    expect(inbox.deadLetters()[0]?.attributes).toMatchObject({
      'inbox.error': 'PermanentError',
      'inbox.errorMessage': expect.stringContaining('is in USD but account acc-1 is in EUR'),
    });
    expect(account('acc-1')?.balanceCents).toBe(1999);
  });

  it("publishes a payer's credited payment to the notifier once, in its account's group", async () => {
    const { inbox, ledger } = ledgerOnTheKit();
    const record = payment('acc-1', { email: 'payer@example.com' });
    await inbox.run(ledger, [record, copyOf(record), payment('acc-1')]);
    const messages = inbox.outboxItems().flatMap((item) => item.messages as unknown[]);
    expect(messages).toEqual([
      expect.objectContaining({
        destination: NOTIFIER_QUEUE,
        groupId: 'acc-1',
        body: JSON.stringify(JSON.parse(record.body)),
      }),
    ]);
  });

  it('answers Lambda with the partial batch response through its middy handler', async () => {
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'SILENT');
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
    const { settings, account } = ledgerOnTheKit();
    const handler = createInboxHandler(ledgerConsumer, settings);
    const first = payment('acc-1');
    const conflicting = anotherEventFor(first);
    const response = await handler(sqsEvent(first, conflicting), lambdaContext());
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: conflicting.messageId }] });
    expect(account('acc-1')?.balanceCents).toBe(1999);
  });
});
