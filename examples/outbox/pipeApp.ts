import { App, CfnOutput, Stack } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { InboxConsumer, OutboxPipe, QueueSource } from 'sqs-inbox/cdk';

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

// Reads the piped stream records: the `outbox` source keys each by its outbox id.
const notifier = new InboxConsumer(stack, 'Notifier', {
  consumer: 'notifier',
  function: { entry: 'src/notifier.ts' },
  sources: [QueueSource.outbox()],
  businessTables: { notices },
});

// No `outbox` prop: the pipe's own outbox table takes the ledger's tx.publish.
const ledger = new InboxConsumer(stack, 'Ledger', {
  consumer: 'ledger',
  function: { entry: 'src/ledgerPiped.ts' },
  queue: { fifo: true },
  businessTables: { accounts },
});

// The outbox table, the pipe from its stream to the one queue, its dead-letter queue and alarms.
const outbox = new OutboxPipe(stack, 'Outbox', { name: 'ledger', destination: notifier.queue });
outbox.grantPublish(ledger.function);
for (const [name, value] of Object.entries(outbox.publisherEnvironment())) {
  ledger.function.addEnvironment(name, value);
}
new CfnOutput(stack, 'LedgerQueueUrl', { value: ledger.queue.queueUrl });
