import { App, CfnOutput, Stack } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Alias } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { InboxConsumer, QueueSource } from 'sqs-inbox/cdk';

const app = new App();
const stack = new Stack(app, 'Shop');

const stock = new Table(stack, 'Stock', {
  partitionKey: { name: 'sku', type: AttributeType.STRING },
  billingMode: BillingMode.PAY_PER_REQUEST,
  pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
});
// Orders reach the shop two ways: published to a topic, and put on the shop's event bus.
const orders = new Topic(stack, 'Orders', {
  enforceSSL: true,
  masterKey: Alias.fromAliasName(stack, 'SnsKey', 'alias/aws/sns'),
});
const bus = new EventBus(stack, 'ShopBus');

// The subscription, the rule and its target (retries, dead-letter queue), one queue policy
// statement per source limited by aws:SourceArn, and INBOX_SOURCES for the function.
const reservations = new InboxConsumer(stack, 'Reservations', {
  consumer: 'reservations',
  function: { entry: 'src/reservations.ts' },
  sources: [
    QueueSource.snsTopic(orders),
    QueueSource.eventPattern(
      { source: ['shop.orders'], detailType: ['OrderPlaced'] },
      { eventBus: bus },
    ),
  ],
  businessTables: { stock },
});
new CfnOutput(stack, 'OrdersTopicArn', { value: orders.topicArn });
new CfnOutput(stack, 'ShopBusName', { value: bus.eventBusName });
new CfnOutput(stack, 'ReservationsQueueUrl', { value: reservations.queue.queueUrl });
