import { createInboxHandler } from '../shared/createInboxHandler.js';
import { requireEnv } from '../shared/environment.js';
import { applyPayment, PaymentCaptured } from './paymentCaptured.js';

const tables = {
  accounts: requireEnv('ACCOUNTS_TABLE_NAME'),
  entries: requireEnv('LEDGER_ENTRIES_TABLE_NAME'),
};

/** Ledger consumer (FIFO, group = account): one balance credit and one ledger entry per payment. */
export const handler = createInboxHandler({
  schema: PaymentCaptured,
  key: ({ body }) => body.eventId,
  handler: (client) => applyPayment(tables, client),
});
