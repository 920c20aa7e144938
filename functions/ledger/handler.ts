import { createInboxHandler } from '../shared/createInboxHandler.js';
import { ledgerConsumer } from './paymentCaptured.js';

/** Ledger consumer (FIFO, group = account): one balance credit and one ledger entry per payment. */
export const handler = createInboxHandler(ledgerConsumer);
