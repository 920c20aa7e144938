import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Capture, Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { InboxConsumer } from '../../infra/constructs/InboxConsumer.js';
import { consumerTemplate, fixtureEntry, freshStack } from './stackFactory.js';

describe('InboxConsumer', () => {
  it('maps the queue to the function with ReportBatchItemFailures', () => {
    const { template } = consumerTemplate({ batchSize: 7, maxConcurrency: 5 });

    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 7,
      ScalingConfig: { MaximumConcurrency: 5 },
    });
  });

  it('gives the queue a redrive policy to its own DLQ with maxReceiveCount 5 by default', () => {
    const { template } = consumerTemplate();
    const dlqArn = new Capture();

    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { deadLetterTargetArn: dlqArn, maxReceiveCount: 5 },
      VisibilityTimeout: 180,
      MessageRetentionPeriod: 4 * 86_400,
    });
    const [dlqLogicalId] = (dlqArn.asObject()['Fn::GetAtt'] as string[]) ?? [];
    const dlq = template.toJSON().Resources[dlqLogicalId ?? ''];
    expect(dlq).toMatchObject({
      Type: 'AWS::SQS::Queue',
      Properties: { MessageRetentionPeriod: 14 * 86_400 },
    });
  });

  it('encrypts both queues and denies requests without TLS', () => {
    const { template } = consumerTemplate();

    template.resourcePropertiesCountIs('AWS::SQS::Queue', { SqsManagedSseEnabled: true }, 2);
    template.resourcePropertiesCountIs(
      'AWS::SQS::QueuePolicy',
      {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      },
      2,
    );
  });

  it('creates an inbox table keyed by pk with TTL on expiresAt, PITR and encryption', () => {
    const { template } = consumerTemplate();

    template.hasResource('AWS::DynamoDB::Table', {
      Properties: {
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
      },
      DeletionPolicy: 'Retain',
    });
  });

  it('deletes the inbox table with the stack when told to', () => {
    const { template } = consumerTemplate({ inboxTableRemovalPolicy: RemovalPolicy.DESTROY });

    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete' });
  });

  it('uses an existing inbox table instead of creating one', () => {
    const stack = freshStack();
    const shared = new Table(stack, 'Shared', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
    });
    new InboxConsumer(stack, 'Consumer', {
      consumerName: 'orders',
      entry: fixtureEntry,
      inboxTable: shared,
    });

    Template.fromStack(stack).resourceCountIs('AWS::DynamoDB::Table', 1);
  });

  it('runs the function on Node 22, ARM64, with the inbox settings in its environment', () => {
    const { template } = consumerTemplate({ inboxTtl: Duration.days(20) });

    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      Environment: {
        Variables: Match.objectLike({
          INBOX_CONSUMER: 'orders',
          INBOX_TTL_SECONDS: String(20 * 86_400),
          INBOX_TABLE_NAME: Match.anyValue(),
          DEAD_LETTER_QUEUE_URL: Match.anyValue(),
          POWERTOOLS_SERVICE_NAME: 'orders',
        }),
      },
    });
  });

  it('makes a FIFO queue and a FIFO DLQ', () => {
    const { template } = consumerTemplate({ fifo: true, contentBasedDeduplication: true });

    template.resourcePropertiesCountIs('AWS::SQS::Queue', { FifoQueue: true }, 2);
    template.hasResourceProperties('AWS::SQS::Queue', {
      FifoQueue: true,
      ContentBasedDeduplication: true,
    });
  });

  it('grants only item-level actions on named resources: no wildcard resource on any data action', () => {
    const stack = freshStack();
    const accounts = new Table(stack, 'Accounts', {
      partitionKey: { name: 'id', type: AttributeType.STRING },
    });
    new InboxConsumer(stack, 'Consumer', {
      consumerName: 'orders',
      entry: fixtureEntry,
      businessTables: [{ table: accounts, envName: 'ACCOUNTS_TABLE_NAME' }],
    });
    const statements = Object.values(
      Template.fromStack(stack).findResources('AWS::IAM::Policy'),
    ).flatMap(
      (policy) =>
        policy.Properties.PolicyDocument.Statement as Array<{
          Action: string | string[];
          Resource: unknown;
        }>,
    );

    const dataStatements = statements.filter((statement) =>
      [statement.Action].flat().some((action) => /^(dynamodb|sqs|logs):/.test(action)),
    );
    expect(dataStatements.length).toBeGreaterThanOrEqual(4);
    for (const statement of dataStatements) {
      expect([statement.Action].flat().every((action) => !action.endsWith(':*'))).toBe(true);
      expect(JSON.stringify(statement.Resource)).not.toMatch(/^"\*"$|\["\*"\]/);
    }
    const actions = dataStatements.flatMap((statement) => [statement.Action].flat());
    expect(actions).toEqual(
      expect.arrayContaining([
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'sqs:SendMessage',
        'sqs:ReceiveMessage',
        'sqs:DeleteMessage',
      ]),
    );
    expect(actions).not.toContain('dynamodb:Scan');
  });

  it('uses no AWS managed policy for the function role', () => {
    const { template } = consumerTemplate();

    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({
        Statement: [Match.objectLike({ Principal: { Service: 'lambda.amazonaws.com' } })],
      }),
      ManagedPolicyArns: Match.absent(),
    });
  });

  it('alarms on any DLQ message and on the age of the oldest message, notifying the topic', () => {
    const stack = freshStack();
    const topic = new Topic(stack, 'Alarms');
    new InboxConsumer(stack, 'Consumer', {
      consumerName: 'orders',
      entry: fixtureEntry,
      alarmTopic: topic,
      queueAgeAlarmThreshold: Duration.minutes(10),
    });
    const template = Template.fromStack(stack);

    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
      AlarmActions: [Match.anyValue()],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateAgeOfOldestMessage',
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 600,
      AlarmActions: [Match.anyValue()],
    });
  });

  it('builds a dashboard from the metrics the library emits and the queue metrics', () => {
    const { template } = consumerTemplate();
    const body = JSON.stringify(
      Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]?.Properties
        .DashboardBody,
    );

    for (const metric of [
      'InboxProcessed',
      'InboxDuplicates',
      'InboxFailures',
      'ApproximateNumberOfMessagesVisible',
      'ApproximateAgeOfOldestMessage',
    ]) {
      expect(body).toContain(metric);
    }
  });
});
