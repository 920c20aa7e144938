import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type App, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Capture, Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, type CfnTable, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { type CfnKey, Key } from 'aws-cdk-lib/aws-kms';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { type CfnTopic, Topic } from 'aws-cdk-lib/aws-sns';
import type { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { InboxConsumer, type InboxFunctionProps } from '../../src/cdk/index.js';
import {
  consumerTemplate,
  consumerWithAccounts,
  fixtureEntry,
  freshStack,
} from './stackFactory.js';

describe('InboxConsumer', () => {
  it('maps the queue to the function with ReportBatchItemFailures', () => {
    const { template } = consumerTemplate({ eventSource: { batchSize: 7, maxConcurrency: 5 } });

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
    const { template } = consumerTemplate({ removalPolicy: RemovalPolicy.DESTROY });

    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete' });
  });

  it('uses an existing inbox table instead of creating one, pointing the function and its grants at it', () => {
    const stack = freshStack();
    const shared = new Table(stack, 'Shared', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
    });
    new InboxConsumer(stack, 'Consumer', {
      inboxTable: shared,
      consumer: 'orders',
      function: { entry: fixtureEntry },
    });
    const template = Template.fromStack(stack);
    const sharedId = stack.getLogicalId(shared.node.defaultChild as CfnTable);

    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ INBOX_TABLE_NAME: { Ref: sharedId } }) },
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: [
              'dynamodb:GetItem',
              'dynamodb:BatchGetItem',
              'dynamodb:PutItem',
              'dynamodb:UpdateItem',
            ],
            Resource: { 'Fn::GetAtt': [sharedId, 'Arn'] },
          }),
        ]),
      },
    });
  });

  it('limits each consumer of a shared inbox table to its own consumer# entries (dynamodb:LeadingKeys)', () => {
    const stack = freshStack();
    const shared = new Table(stack, 'Shared', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
    });
    for (const consumerName of ['orders', 'billing']) {
      new InboxConsumer(stack, consumerName, {
        inboxTable: shared,
        consumer: consumerName,
        function: { entry: fixtureEntry },
      });
    }
    const template = Template.fromStack(stack);
    const sharedArn = {
      'Fn::GetAtt': [stack.getLogicalId(shared.node.defaultChild as CfnTable), 'Arn'],
    };

    for (const consumerName of ['orders', 'billing']) {
      template.hasResourceProperties('AWS::IAM::Policy', {
        PolicyDocument: {
          Statement: Match.arrayWith([
            {
              Effect: 'Allow',
              Action: [
                'dynamodb:GetItem',
                'dynamodb:BatchGetItem',
                'dynamodb:PutItem',
                'dynamodb:UpdateItem',
              ],
              Resource: sharedArn,
              Condition: {
                'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${consumerName}#*`] },
              },
            },
          ]),
        },
      });
    }
    const inboxStatements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (policy) =>
        (
          policy.Properties.PolicyDocument.Statement as Array<{
            Resource: unknown;
            Condition?: unknown;
          }>
        ).filter((statement) =>
          JSON.stringify(statement.Resource).includes(JSON.stringify(sharedArn)),
        ),
    );
    expect(inboxStatements).toHaveLength(2);
    expect(inboxStatements.every((statement) => statement.Condition !== undefined)).toBe(true);
  });

  it('lets the function use the customer-managed key of a business table', () => {
    let key: Key | undefined;
    const { stack, template } = consumerWithAccounts(
      (accounts) => ({ businessTables: { accounts } }),
      (stack) => {
        key = new Key(stack, 'Key');
        return { encryption: TableEncryption.CUSTOMER_MANAGED, encryptionKey: key };
      },
    );

    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: Match.arrayWith(['kms:Decrypt', 'kms:Encrypt']),
            Resource: {
              'Fn::GetAtt': [stack.getLogicalId(key?.node.defaultChild as CfnKey), 'Arn'],
            },
          }),
        ]),
      },
    });
  });

  it('runs the function on Node.js 24, ARM64 by default, with the environment contract the library reads', () => {
    const { stack, accounts, template } = consumerWithAccounts((accounts) => ({
      businessTables: { accounts },
      ttl: Duration.days(30),
      deadLetter: { maxReceiveCount: 7 },
    }));

    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      Environment: {
        Variables: Match.objectLike({
          INBOX_CONSUMER: 'orders',
          INBOX_TTL_SECONDS: String(30 * 86_400),
          INBOX_TABLE_NAME: Match.anyValue(),
          INBOX_DEAD_LETTER_QUEUE_URL: Match.anyValue(),
          INBOX_MAX_RECEIVE_COUNT: '7',
          INBOX_BUSINESS_TABLE_accounts: {
            Ref: stack.getLogicalId(accounts.node.defaultChild as CfnTable),
          },
          POWERTOOLS_SERVICE_NAME: 'orders',
        }),
      },
    });
  });

  it('takes runtime and architecture as props', () => {
    const { template } = consumerTemplate({
      function: { runtime: Runtime.NODEJS_22_X, architecture: Architecture.X86_64 },
    });

    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x',
      Architectures: ['x86_64'],
    });
  });

  it('makes a FIFO queue and a FIFO DLQ', () => {
    const { template } = consumerTemplate({
      queue: { fifo: true, contentBasedDeduplication: true },
    });

    template.resourcePropertiesCountIs('AWS::SQS::Queue', { FifoQueue: true }, 2);
    template.hasResourceProperties('AWS::SQS::Queue', {
      FifoQueue: true,
      ContentBasedDeduplication: true,
    });
  });

  it('grants item-level actions (and DescribeTable) on named resources: no wildcard resource on any data action', () => {
    const { template } = consumerWithAccounts((accounts) => ({
      businessTables: { accounts: { table: accounts, actions: ['dynamodb:UpdateItem'] } },
    }));
    const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (policy) =>
        policy.Properties.PolicyDocument.Statement as Array<{
          Action: string | string[];
          Resource: unknown;
        }>,
    );

    const dataStatements = statements.filter((statement) =>
      [statement.Action].flat().some((action) => /^(dynamodb|sqs|logs):/.test(action)),
    );
    const actions = dataStatements.flatMap((statement) => [statement.Action].flat());
    const resources = dataStatements.flatMap((statement) => [statement.Resource].flat());
    expect(actions.filter((action) => action.endsWith('*'))).toEqual([]);
    expect(resources.length).toBeGreaterThan(0);
    for (const resource of resources) {
      expect(resource).not.toBe('*');
      expect(JSON.stringify(resource)).not.toMatch(/\*"/);
    }
    expect(new Set(actions)).toEqual(
      new Set([
        'dynamodb:GetItem',
        'dynamodb:BatchGetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DescribeTable',
        'sqs:SendMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:ReceiveMessage',
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
      ]),
    );
  });

  it('uses no AWS managed policy for the function role', () => {
    const { template } = consumerTemplate();

    template.resourceCountIs('AWS::IAM::Role', 1);
    template.allResourcesProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({
        Statement: [Match.objectLike({ Principal: { Service: 'lambda.amazonaws.com' } })],
      }),
      ManagedPolicyArns: Match.absent(),
    });
  });

  it('alarms on any message in the DLQ and on the age of the source queue’s oldest message, notifying the topic', () => {
    const stack = freshStack();
    const topic = new Topic(stack, 'Alarms');
    const consumer = new InboxConsumer(stack, 'Consumer', {
      consumer: 'orders',
      function: { entry: fixtureEntry },
      monitoring: { alarmTopic: topic, queueAgeAlarmThreshold: Duration.minutes(10) },
    });
    const template = Template.fromStack(stack);
    const queueName = (queue: typeof consumer.queue) => ({
      'Fn::GetAtt': [stack.getLogicalId(queue.node.defaultChild as CfnQueue), 'QueueName'],
    });
    const topicRef = { Ref: stack.getLogicalId(topic.node.defaultChild as CfnTopic) };

    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: queueName(consumer.deadLetterQueue) }],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
      AlarmActions: [topicRef],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: queueName(consumer.queue) }],
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 600,
      AlarmActions: [topicRef],
    });
  });

  it('bundles the function as one ESM file with the AWS SDK inside, not imported from the runtime', () => {
    const ledgerEntry = fileURLToPath(
      new URL('../../functions/ledger/handler.ts', import.meta.url),
    );
    const { stack, template } = consumerTemplate(
      { function: { entry: ledgerEntry } },
      { bundle: true },
    );
    const [fn] = Object.values(template.findResources('AWS::Lambda::Function'));
    const assetHash = String(fn?.Properties.Code.S3Key).replace(/\.zip$/, '');
    const assetDir = join((stack.node.root as App).outdir, `asset.${assetHash}`);

    expect(readdirSync(assetDir)).toContain('index.mjs');
    const code = readFileSync(join(assetDir, 'index.mjs'), 'utf8');
    expect(code).toContain('TransactWriteItems');
    // Static imports of the SDK would need it in the runtime; (optional) lazy ones inside the SDK are fine.
    const staticSdkImports =
      code.match(/(?:^|[;\n])\s*import[^;()]*?from\s*["']@aws-sdk\/[^"']*["']/g) ?? [];
    expect(staticSdkImports).toEqual([]);
  });

  it('keeps the require banner to ESM output and adds a banner of the user’s own after it', () => {
    const bannerOf = (bundling: Partial<InboxFunctionProps['bundling']>) => {
      const { stack, template } = consumerTemplate({ function: { bundling } }, { bundle: true });
      const [fn] = Object.values(template.findResources('AWS::Lambda::Function'));
      const assetDir = join(
        (stack.node.root as App).outdir,
        `asset.${String(fn?.Properties.Code.S3Key).replace(/\.zip$/, '')}`,
      );
      const file = readdirSync(assetDir).find((name) => /^index\.[cm]?js$/.test(name)) ?? '';
      return readFileSync(join(assetDir, file), 'utf8').split('\n').slice(0, 2).join('\n');
    };

    expect(bannerOf({ format: OutputFormat.CJS })).not.toContain('createRequire');
    expect(bannerOf({ banner: '// mine' })).toMatch(
      /^import \{ createRequire \} from 'node:module'; const require = createRequire\(import\.meta\.url\);\n\/\/ mine/,
    );
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
