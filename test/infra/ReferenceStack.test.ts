import { App, type CfnResource, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { type CfnTable, Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { CfnBucket } from 'aws-cdk-lib/aws-s3';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { ReferenceStack } from '../../infra/stacks/ReferenceStack.js';
import { roleStatements } from './stackFactory.js';

/** The reference app, not bundled: these tests read the template only. */
function referenceApp() {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new ReferenceStack(app, 'Reference', { removalPolicy: RemovalPolicy.DESTROY });
  return { app, stack };
}

describe('ReferenceStack', () => {
  it("runs the ledger on a FIFO queue fed by a FIFO topic, the inventory on a standard queue fed by a rule on the orders bus and the notifier on a standard queue fed by the ledger's outbox relay, all reporting item failures", () => {
    const { stack } = referenceApp();
    const template = Template.fromStack(stack);

    // Three queue mappings and the relay's mapping on the ledger's outbox stream.
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 4);
    template.resourcePropertiesCountIs(
      'AWS::Lambda::EventSourceMapping',
      { FunctionResponseTypes: ['ReportBatchItemFailures'] },
      4,
    );
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('LedgerOutboxTable'), 'StreamArn'] },
      BisectBatchOnFunctionError: true,
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          INBOX_CONSUMER: 'ledger',
          INBOX_DESTINATION_credited: { Ref: Match.stringLikeRegexp('NotifierQueue') },
        }),
      },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({ INBOX_CONSUMER: 'notifier', INBOX_SOURCES: 'outbox' }),
      },
    });
    template.resourcePropertiesCountIs('AWS::SQS::Queue', { FifoQueue: true }, 2);
    // Each consumer's queue and DLQ, and the relay's dead-letter queue.
    template.resourceCountIs('AWS::SQS::Queue', 7);
    template.hasResourceProperties('AWS::SNS::Topic', { FifoTopic: true });
    template.resourceCountIs('AWS::SNS::Subscription', 1);
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: Match.stringLikeRegexp('OrdersBus') },
      EventPattern: { source: ['shop.orders'], 'detail-type': ['OrderPlaced'] },
    });
  });

  it('declares the key each function keys by (eventId), so the operator’s command keys a DLQ message as the function does', () => {
    const template = Template.fromStack(referenceApp().stack);

    for (const consumer of ['inventory', 'notifier', 'ledger']) {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: Match.objectLike({ INBOX_CONSUMER: consumer, INBOX_KEY: 'field:eventId' }),
        },
      });
    }
  });

  it('shares one inbox table and gives every table point-in-time recovery (the outbox too)', () => {
    const template = Template.fromStack(referenceApp().stack);

    template.resourceCountIs('AWS::DynamoDB::Table', 7);
    // The inbox and the ledger's outbox.
    template.resourcePropertiesCountIs(
      'AWS::DynamoDB::Table',
      { TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true } },
      2,
    );
    template.resourcePropertiesCountIs(
      'AWS::DynamoDB::Table',
      { PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } },
      7,
    );
  });

  it('passes each function its business table names', () => {
    const template = Template.fromStack(referenceApp().stack);

    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          INBOX_CONSUMER: 'ledger',
          INBOX_BUSINESS_TABLE_accounts: Match.anyValue(),
          INBOX_BUSINESS_TABLE_ledgerEntries: Match.anyValue(),
        }),
      },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          INBOX_CONSUMER: 'inventory',
          INBOX_BUSINESS_TABLE_stock: Match.anyValue(),
          INBOX_BUSINESS_TABLE_orders: Match.anyValue(),
        }),
      },
    });
  });

  it('gives the notifier its receipts bucket and sender through the construct, beside its notifications table', () => {
    const { stack } = referenceApp();
    const template = Template.fromStack(stack);
    const bucketRef = {
      Ref: stack.getLogicalId(stack.receiptsBucket.node.defaultChild as CfnBucket),
    };

    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          INBOX_CONSUMER: 'notifier',
          INBOX_BUSINESS_TABLE_notifications: Match.anyValue(),
          NOTIFIER_RECEIPTS_BUCKET: bucketRef,
          NOTIFIER_SENDER: 'payments@example.com',
        }),
      },
    });
    template.hasResourceProperties('AWS::SES::EmailIdentity', {
      EmailIdentity: 'payments@example.com',
    });
  });

  it('sends the notifier from the address it is given', () => {
    const stack = new ReferenceStack(new App(), 'Reference', {
      notifierSender: 'billing@shop.test',
    });
    const template = Template.fromStack(stack);

    template.hasResourceProperties('AWS::SES::EmailIdentity', {
      EmailIdentity: 'billing@shop.test',
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ NOTIFIER_SENDER: 'billing@shop.test' }) },
    });
  });

  it('keeps receipts private, encrypted, TLS only and access-logged', () => {
    const { stack } = referenceApp();
    const template = Template.fromStack(stack);

    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: Match.objectLike({
        ServerSideEncryptionConfiguration: [
          Match.objectLike({ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }),
        ],
      }),
      LoggingConfiguration: Match.objectLike({ DestinationBucketName: Match.anyValue() }),
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: stack.getLogicalId(stack.receiptsBucket.node.defaultChild as CfnBucket) },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });
});

describe('ReferenceStack grants', () => {
  /** Every statement of a consumer's role policies. */
  function statementsOf(stack: ReferenceStack, consumer: 'ledger' | 'inventory' | 'notifier') {
    return roleStatements(stack, stack[consumer].function);
  }

  /** The actions a consumer's role may perform on one table, from the synthesized policies. */
  function actionsOn(
    stack: ReferenceStack,
    consumer: 'ledger' | 'inventory' | 'notifier',
    table: Table,
  ): string[] {
    const tableArn = {
      'Fn::GetAtt': [stack.getLogicalId(table.node.defaultChild as CfnTable), 'Arn'],
    };
    return statementsOf(stack, consumer)
      .filter((statement) => JSON.stringify(statement.Resource).includes(JSON.stringify(tableArn)))
      .flatMap((statement) => [statement.Action].flat());
  }

  it('let the notifier send from its sender identity and create receipts under receipts/, and nothing more on S3 or SES', () => {
    const { stack } = referenceApp();
    const statements = statementsOf(stack, 'notifier');
    const bucketArn = {
      'Fn::GetAtt': [
        stack.getLogicalId(stack.receiptsBucket.node.defaultChild as CfnBucket),
        'Arn',
      ],
    };
    const onS3 = statements.filter((s) => JSON.stringify(s.Action).includes('s3:'));
    const onSes = statements.filter((s) => JSON.stringify(s.Action).includes('ses:'));

    expect(onS3).toEqual([
      expect.objectContaining({
        Action: 's3:PutObject',
        Resource: { 'Fn::Join': ['', [bucketArn, '/receipts/*']] },
      }),
    ]);
    expect(onSes.flatMap((s) => [s.Action].flat())).toEqual(
      expect.arrayContaining(['ses:SendEmail']),
    );
    expect(JSON.stringify(onSes.map((s) => s.Resource))).toContain(
      stack.getLogicalId(stack.notifierSender.node.defaultChild as CfnResource),
    );
    for (const consumer of ['ledger', 'inventory'] as const)
      expect(
        statementsOf(stack, consumer).filter((s) => /"(s3|ses):/.test(JSON.stringify(s.Action))),
      ).toEqual([]);
  });

  it('let each function do what its code does on its business tables, and no more', () => {
    const { stack } = referenceApp();
    const tables = Object.fromEntries(
      stack.node.children.filter((c): c is Table => c instanceof Table).map((t) => [t.node.id, t]),
    );

    expect(actionsOn(stack, 'ledger', tables.AccountsTable as Table)).toEqual(
      expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:UpdateItem']),
    );
    expect(actionsOn(stack, 'ledger', tables.LedgerEntriesTable as Table)).toEqual(
      expect.arrayContaining(['dynamodb:PutItem']),
    );
    expect(actionsOn(stack, 'inventory', tables.StockTable as Table)).toEqual(
      expect.arrayContaining(['dynamodb:BatchGetItem', 'dynamodb:UpdateItem']),
    );
    expect(actionsOn(stack, 'inventory', tables.OrdersTable as Table)).toEqual(
      expect.arrayContaining(['dynamodb:PutItem']),
    );
    expect(actionsOn(stack, 'inventory', tables.AccountsTable as Table)).toEqual([]);
    expect(actionsOn(stack, 'ledger', tables.StockTable as Table)).toEqual([]);
    expect(actionsOn(stack, 'notifier', tables.NotificationsTable as Table)).toEqual(
      expect.arrayContaining(['dynamodb:PutItem']),
    );
    expect(actionsOn(stack, 'notifier', tables.AccountsTable as Table)).toEqual([]);
  });
});

describe('cdk-nag AwsSolutions checks', () => {
  it('find no error in the reference app, with one finding acknowledged: the receipts key prefix', () => {
    const { app } = referenceApp();
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

    expect(() => app.synth()).not.toThrow();
  });

  it('do fail the synth on an unacknowledged finding (the check is live)', () => {
    const { app, stack } = referenceApp();
    new Queue(stack, 'Unencrypted', { enforceSSL: false });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

    expect(() => app.synth()).toThrow(/[Vv]alidation/);
  });

  it('still fail the synth on any other wildcard of the notifier (the acknowledgement is that one finding)', () => {
    const { app, stack } = referenceApp();
    stack.notifier.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [stack.receiptsBucket.arnForObjects('*')],
      }),
    );
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

    expect(() => app.synth()).toThrow(/[Vv]alidation/);
  });
});
