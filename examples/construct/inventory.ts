import { App, Stack } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { InboxConsumer, InboxTable } from 'sqs-inbox/cdk';

const app = new App();
const stack = new Stack(app, 'Shop');
const table = (id: string, partitionKey: string) =>
  new Table(stack, id, {
    partitionKey: { name: partitionKey, type: AttributeType.STRING },
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
  });
const stock = table('Stock', 'sku');
const orders = table('Orders', 'orderId');

// One inbox table for several consumers; each sees only its own `consumer#…` entries.
const inboxTable = new InboxTable(stack, 'Inbox');

new InboxConsumer(stack, 'Inventory', {
  consumer: 'inventory',
  function: { entry: 'functions/inventory/handler.ts' },
  inboxTable,
  businessTables: {
    stock: { table: stock, actions: ['dynamodb:BatchGetItem', 'dynamodb:UpdateItem'] },
    orders, // a table alone gets the default actions
  },
});
