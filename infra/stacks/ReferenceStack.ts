import { fileURLToPath } from 'node:url';
import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Alias } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { InboxConsumer, type InboxConsumerProps, InboxTable, QueueSource } from 'sqs-inbox/cdk';
import { InventoryTable, OrderPlacedEvent } from '../../functions/inventory/orderPlaced.js';
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
 * The reference service: a ledger consumer on a FIFO queue (group = account) fed by a FIFO SNS
 * topic of payment notifications, and an inventory consumer on a standard queue fed by an
 * EventBridge rule for placed orders on the shop's bus; one inbox table, their business tables.
 *
 * @example
 * ```ts
 * new ReferenceStack(app, 'SqsInboxReference', { tableRemovalPolicy: RemovalPolicy.DESTROY });
 * ```
 */
export class ReferenceStack extends Stack {
  readonly ledger: InboxConsumer;
  readonly inventory: InboxConsumer;
  /** Payment notifications (FIFO, group = account), fanned out to the ledger. */
  readonly paymentsTopic: Topic;
  /** The shop's event bus; its placed orders go to the inventory. */
  readonly ordersBus: EventBus;

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
    this.paymentsTopic = new Topic(this, 'PaymentsTopic', {
      fifo: true,
      enforceSSL: true,
      masterKey: Alias.fromAliasName(this, 'SnsKey', 'alias/aws/sns'),
    });
    this.ordersBus = new EventBus(this, 'OrdersBus');

    this.ledger = new InboxConsumer(this, 'Ledger', {
      ...props.consumerOverrides,
      consumerName: 'ledger',
      entry: `${functionsDir}ledger/handler.ts`,
      fifo: true,
      sources: [QueueSource.snsTopic(this.paymentsTopic)],
      inboxTable,
      businessTables: { [LedgerTable.Accounts]: accounts, [LedgerTable.Entries]: entries },
    });
    this.inventory = new InboxConsumer(this, 'Inventory', {
      ...props.consumerOverrides,
      consumerName: 'inventory',
      entry: `${functionsDir}inventory/handler.ts`,
      sources: [
        QueueSource.eventPattern(
          { source: [OrderPlacedEvent.source], detailType: [OrderPlacedEvent.detailType] },
          { eventBus: this.ordersBus },
        ),
      ],
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
    new CfnOutput(this, 'PaymentsTopicArn', { value: this.paymentsTopic.topicArn });
    new CfnOutput(this, 'OrdersBusName', { value: this.ordersBus.eventBusName });
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
