import { InboxTest, sqsRecord } from 'sqs-inbox/testing';
import { createLedger } from './ledger.js';

export const BOOKED = 'https://sqs.eu-west-1.amazonaws.com/123456789012/booked';

/** The ledger on the kit: its table, an outbox, and an SMS gateway that keeps the texts. */
export function ledgerOnTheKit() {
  const inbox = new InboxTest({
    consumer: 'ledger',
    tables: [{ tableName: 'accounts', partitionKey: 'accountId' }],
    outbox: true,
    destinations: { booked: BOOKED },
  });
  const texts: string[] = [];
  const ledger = createLedger(inbox.inboxConfig(), {
    dynamo: inbox.dynamo.documentClient,
    sendSms: async ({ text }) => void texts.push(text),
  });
  const balance = () => inbox.dynamo.item('accounts', { accountId: 'acc-1' })?.balanceCents;
  return { inbox, ledger, texts, balance };
}

export const transfer = (eventId: string, amountCents: number) =>
  sqsRecord({ eventId, accountId: 'acc-1', amountCents });
