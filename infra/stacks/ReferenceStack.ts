import { fileURLToPath } from 'node:url';
import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { InboxConsumer, type InboxConsumerProps, InboxTable } from 'sqs-inbox/cdk';
import { InventoryTable } from '../../functions/inventory/orderPlaced.js';
import { LedgerTable } from '../../functions/ledger/paymentCaptured.js';

const functionsDir = fileURLToPath(new URL('../../functions/', import.meta.url));

/** Properties of {@link ReferenceStack}. */
export interface ReferenceStackProps extends StackProps {
  /**
   * Removal policy of every table of the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly tableRemovalPolicy?: RemovalPolicy;
  /**
   * Settings applied to both consumers, e.g. short timeouts for a local end-to-end run.
   * @default the construct's defaults
   */
  readonly consumerOverrides?: Pick<InboxConsumerProps, 'functionTimeout' | 'maxReceiveCount'>;
}

/**
 * The reference service: a ledger consumer on a FIFO queue (group = account) and an inventory
 * consumer on a standard queue, sharing one inbox table, with their business tables.
 *
 * @example
 * ```ts
 * new ReferenceStack(app, 'SqsInboxReference', { tableRemovalPolicy: RemovalPolicy.DESTROY });
 * ```
 */
export class ReferenceStack extends Stack {
  readonly ledger: InboxConsumer;
  readonly inventory: InboxConsumer;

  constructor(scope: Construct, id: string, props: ReferenceStackProps = {}) {
    super(scope, id, props);
    const removalPolicy = props.tableRemovalPolicy ?? RemovalPolicy.RETAIN;
    const table = (name: string, partitionKey: string) =>
      new Table(this, name, {
        partitionKey: { name: partitionKey, type: AttributeType.STRING },
        billingMode: BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        encryption: TableEncryption.AWS_MANAGED,
        removalPolicy,
      });
    const inboxTable = new InboxTable(this, 'InboxTable', { removalPolicy });
    const accounts = table('AccountsTable', 'accountId');
    const entries = table('LedgerEntriesTable', 'paymentId');
    const stock = table('StockTable', 'sku');
    const orders = table('OrdersTable', 'orderId');

    this.ledger = new InboxConsumer(this, 'Ledger', {
      ...props.consumerOverrides,
      consumerName: 'ledger',
      entry: `${functionsDir}ledger/handler.ts`,
      fifo: true,
      inboxTable,
      businessTables: { [LedgerTable.Accounts]: accounts, [LedgerTable.Entries]: entries },
    });
    this.inventory = new InboxConsumer(this, 'Inventory', {
      ...props.consumerOverrides,
      consumerName: 'inventory',
      entry: `${functionsDir}inventory/handler.ts`,
      inboxTable,
      businessTables: {
        [InventoryTable.Stock]: {
          table: stock,
          actions: ['dynamodb:BatchGetItem', 'dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem'],
        },
        [InventoryTable.Orders]: {
          table: orders,
          actions: ['dynamodb:PutItem', 'dynamodb:ConditionCheckItem'],
        },
      },
    });
    this.#outputs({
      InboxTable: inboxTable,
      AccountsTable: accounts,
      LedgerEntriesTable: entries,
      StockTable: stock,
      OrdersTable: orders,
    });
  }

  #outputs(tables: Record<string, Table>): void {
    for (const [name, consumer] of Object.entries({
      Ledger: this.ledger,
      Inventory: this.inventory,
    })) {
      new CfnOutput(this, `${name}QueueUrl`, { value: consumer.queue.queueUrl });
      new CfnOutput(this, `${name}FunctionName`, { value: consumer.function.functionName });
      new CfnOutput(this, `${name}LogGroupName`, { value: consumer.logGroup.logGroupName });
      new CfnOutput(this, `${name}DeadLetterQueueUrl`, {
        value: consumer.deadLetterQueue.queueUrl,
      });
    }
    for (const [name, table] of Object.entries(tables)) {
      new CfnOutput(this, `${name}Name`, {
        value: table.tableName,
      });
    }
  }
}
