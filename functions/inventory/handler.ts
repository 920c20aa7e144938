import { createInboxHandler } from '../shared/createInboxHandler.js';
import { inventoryConsumer } from './orderPlaced.js';

/** Inventory consumer (standard queue): reserves an order's stock, or records its rejection, once. */
export const handler = createInboxHandler(inventoryConsumer);
