import { App, CfnOutput, Stack } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { InboxConsumer } from 'sqs-inbox/cdk';

const app = new App();
const stack = new Stack(app, 'Payments');

const accounts = new Table(stack, 'Accounts', {
  partitionKey: { name: 'accountId', type: AttributeType.STRING },
  billingMode: BillingMode.PAY_PER_REQUEST,
  pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
});

// Queue + DLQ, inbox table, the bundled function, its event source mapping, grants and alarms.
const ledger = new InboxConsumer(stack, 'Ledger', {
  consumer: 'ledger',
  function: { entry: 'src/ledger.ts' },
  queue: { fifo: true },
  businessTables: { accounts },
});
new CfnOutput(stack, 'QueueUrl', { value: ledger.queue.queueUrl });
