import { fileURLToPath } from 'node:url';
import {
  CfnOutput,
  type CfnResource,
  type Duration,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Alias } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { EmailIdentity, Identity } from 'aws-cdk-lib/aws-ses';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { InboxConsumer, InboxTable, MessageKey, QueueSource } from 'sqs-inbox/cdk';
import { InventoryTable, OrderPlacedEvent } from '../../functions/inventory/orderPlaced.js';
import { LedgerDestination, LedgerTable } from '../../functions/ledger/paymentCaptured.js';
import { NotifierEnvironment } from '../../functions/notifier/notifierEnvironment.js';
import { NotifierTable } from '../../functions/notifier/paymentNotification.js';

const functionsDir = fileURLToPath(new URL('../../functions/', import.meta.url));

/**
 * Every reference consumer keys its messages by the event's `eventId` (`key` in its
 * `ConsumerDefinition`). Declared here too, as `INBOX_KEY`, so that `sqs-inbox dlq redrive` and
 * `message --from-dlq` key a DLQ message exactly as the function does.
 */
const EVENT_ID_KEY = MessageKey.field('eventId');

/** Properties of {@link ReferenceStack}. */
export interface ReferenceStackProps extends StackProps {
  /**
   * Removal policy of every table and of the receipts bucket.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * The address the notifier sends from: an SES email identity the stack creates. On AWS it
   * must be verified (SES mails it a link) before the notifier's emails go out.
   * @default 'payments@example.com'
   */
  readonly notifierSender?: string;
  /**
   * Settings applied to every consumer, e.g. short timeouts for a local end-to-end run.
   * @default the construct's defaults
   */
  readonly consumerOverrides?: {
    readonly functionTimeout?: Duration;
    readonly maxReceiveCount?: number;
  };
}

/**
 * The reference service: a ledger consumer on a FIFO queue (group = account) fed by a FIFO SNS
 * topic of captured payments, an inventory consumer on a standard queue fed by an EventBridge
 * rule for placed orders on the shop's bus, and a notifier on a standard queue of its own, to
 * which the ledger's outbox relays each credited payment, whose steps email the payer through
 * SES and write a receipt to S3; one inbox table, their business tables.
 *
 * @example
 * ```ts
 * new ReferenceStack(app, 'SqsInboxReference', { removalPolicy: RemovalPolicy.DESTROY });
 * ```
 */
export class ReferenceStack extends Stack {
  readonly ledger: InboxConsumer;
  readonly inventory: InboxConsumer;
  readonly notifier: InboxConsumer;
  /** Where the notifier writes receipts (`receipts/<paymentId>.json`). */
  readonly receiptsBucket: Bucket;
  /** The SES identity the notifier sends from. */
  readonly notifierSender: EmailIdentity;
  /** Payment notifications (FIFO, group = account), fanned out to the ledger. */
  readonly paymentsTopic: Topic;
  /** The shop's event bus; its placed orders go to the inventory. */
  readonly ordersBus: EventBus;

  constructor(scope: Construct, id: string, props: ReferenceStackProps = {}) {
    super(scope, id, props);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
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
    const notifications = table('NotificationsTable', 'eventId');
    this.paymentsTopic = new Topic(this, 'PaymentsTopic', {
      fifo: true,
      enforceSSL: true,
      masterKey: Alias.fromAliasName(this, 'SnsKey', 'alias/aws/sns'),
    });
    this.ordersBus = new EventBus(this, 'OrdersBus');

    const { functionTimeout, maxReceiveCount } = props.consumerOverrides ?? {};
    const timeout = functionTimeout ? { timeout: functionTimeout } : {};
    const deadLetter = maxReceiveCount ? { deadLetter: { maxReceiveCount } } : {};
    this.inventory = new InboxConsumer(this, 'Inventory', {
      consumer: 'inventory',
      function: { entry: `${functionsDir}inventory/handler.ts`, ...timeout },
      ...deadLetter,
      key: EVENT_ID_KEY,
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
    this.receiptsBucket = this.#receiptsBucket(removalPolicy);
    const sender = props.notifierSender ?? 'payments@example.com';
    this.notifierSender = new EmailIdentity(this, 'NotifierSender', {
      identity: Identity.email(sender),
    });
    this.notifier = new InboxConsumer(this, 'Notifier', {
      consumer: 'notifier',
      ...deadLetter,
      // The ledger's outbox relay sends it the credited payments.
      sources: [QueueSource.outbox()],
      key: EVENT_ID_KEY,
      inboxTable,
      businessTables: {
        [NotifierTable.Notifications]: { table: notifications, actions: ['dynamodb:PutItem'] },
      },
      function: {
        entry: `${functionsDir}notifier/handler.ts`,
        ...timeout,
        environment: {
          [NotifierEnvironment.ReceiptsBucket]: this.receiptsBucket.bucketName,
          [NotifierEnvironment.Sender]: sender,
        },
      },
    });
    this.ledger = new InboxConsumer(this, 'Ledger', {
      consumer: 'ledger',
      function: { entry: `${functionsDir}ledger/handler.ts`, ...timeout },
      queue: { fifo: true },
      ...deadLetter,
      sources: [QueueSource.snsTopic(this.paymentsTopic)],
      key: EVENT_ID_KEY,
      inboxTable,
      businessTables: { [LedgerTable.Accounts]: accounts, [LedgerTable.Entries]: entries },
      // Each credited payment is passed on to the notifier through the outbox.
      outbox: {
        destinations: { [LedgerDestination.Credited]: this.notifier.queue },
        removalPolicy,
      },
    });
    this.#grantNotifierEffects();
    this.#outputs({
      InboxTable: inboxTable,
      AccountsTable: accounts,
      LedgerEntriesTable: entries,
      StockTable: stock,
      OrdersTable: orders,
      NotificationsTable: notifications,
    });
  }

  /**
   * The email step's `ses:SendEmail` from the sender identity, and the receipt step's
   * `s3:PutObject` (with `If-None-Match`) under `receipts/` only: one key per payment, so the
   * one wildcard of the stack, acknowledged by name.
   */
  #grantNotifierEffects(): void {
    const fn = this.notifier.function;
    this.notifierSender.grantSendEmail(fn);
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [this.receiptsBucket.arnForObjects('receipts/*')],
      }),
    );
    const bucketId = this.getLogicalId(this.receiptsBucket.node.defaultChild as CfnResource);
    if (fn.role)
      Validations.of(fn.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/receipts/*]`,
        reason:
          'Receipts are keyed by payment id: the notifier may create any object under receipts/, and nothing else.',
      });
  }

  /** Private, encrypted, TLS only, its access logged to a bucket of its own. */
  #receiptsBucket(removalPolicy: RemovalPolicy): Bucket {
    const settings = {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      removalPolicy,
    };
    const accessLogs = new Bucket(this, 'ReceiptsAccessLogs', settings);
    return new Bucket(this, 'ReceiptsBucket', {
      ...settings,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'receipts-bucket/',
    });
  }

  #outputs(tables: Record<string, Table>): void {
    new CfnOutput(this, 'PaymentsTopicArn', { value: this.paymentsTopic.topicArn });
    new CfnOutput(this, 'OrdersBusName', { value: this.ordersBus.eventBusName });
    new CfnOutput(this, 'ReceiptsBucketName', { value: this.receiptsBucket.bucketName });
    new CfnOutput(this, 'NotifierSenderAddress', { value: this.notifierSender.emailIdentityName });
    const outbox = this.ledger.outbox;
    if (outbox) {
      new CfnOutput(this, 'LedgerOutboxTableName', { value: outbox.table.tableName });
      new CfnOutput(this, 'LedgerOutboxDeadLetterQueueUrl', {
        value: outbox.deadLetterQueue.queueUrl,
      });
    }
    for (const [name, consumer] of Object.entries({
      Ledger: this.ledger,
      Inventory: this.inventory,
      Notifier: this.notifier,
    })) {
      new CfnOutput(this, `${name}QueueUrl`, { value: consumer.queue.queueUrl });
      new CfnOutput(this, `${name}FunctionName`, { value: consumer.function.functionName });
      new CfnOutput(this, `${name}LogGroupName`, {
        value: consumer.function.logGroup.logGroupName,
      });
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
