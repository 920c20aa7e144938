import { createInboxHandler } from '../shared/createInboxHandler.js';
import { requireEnv } from '../shared/environment.js';
import { OrderPlaced, reserveOrder } from './orderPlaced.js';

const tables = { stock: requireEnv('STOCK_TABLE_NAME'), orders: requireEnv('ORDERS_TABLE_NAME') };

/** Inventory consumer (standard queue): reserves an order's stock, or records its rejection, once. */
export const handler = createInboxHandler({
  schema: OrderPlaced,
  key: ({ body }) => body.eventId,
  handler: (client) => reserveOrder(tables, client),
});
