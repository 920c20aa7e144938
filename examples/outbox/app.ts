import { App, CfnOutput, Stack } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { InboxConsumer, QueueSource } from 'sqs-inbox/cdk';

const app = new App();
const stack = new Stack(app, 'Payments');

const table = (name: string, key: string) =>
  new Table(stack, name, {
    partitionKey: { name: key, type: AttributeType.STRING },
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
  });
const accounts = table('Accounts', 'accountId');
const notices = table('Notices', 'paymentId');

// Consumes what the ledger's outbox relays: keyed by each message's outbox id.
const notifier = new InboxConsumer(stack, 'Notifier', {
  consumer: 'notifier',
  function: { entry: 'src/notifier.ts' },
  sources: [QueueSource.outbox()],
  businessTables: { notices },
});

// The outbox table, the relay on its stream (dead-letter queue, alarms), and the one grant:
// the relay may send to the notifier's queue.
const ledger = new InboxConsumer(stack, 'Ledger', {
  consumer: 'ledger',
  function: { entry: 'src/ledgerOutbox.ts' },
  queue: { fifo: true },
  businessTables: { accounts },
  outbox: { destinations: { credited: notifier.queue } },
});
new CfnOutput(stack, 'LedgerQueueUrl', { value: ledger.queue.queueUrl });
