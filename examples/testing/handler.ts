import { createLedger } from './ledger.js';

// The deployed function: its config from the environment the InboxConsumer construct sets.
export const handler = createLedger().process;
