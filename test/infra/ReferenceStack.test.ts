import { App, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { type CfnTable, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { ReferenceStack } from '../../infra/stacks/ReferenceStack.js';

function referenceApp() {
  const app = new App();
  const stack = new ReferenceStack(app, 'Reference', { tableRemovalPolicy: RemovalPolicy.DESTROY });
  return { app, stack };
}

describe('ReferenceStack', () => {
  it('runs the ledger on a FIFO queue fed by a FIFO topic and the inventory on a standard queue fed by a rule on the orders bus, both reporting item failures', () => {
    const { stack } = referenceApp();
    const template = Template.fromStack(stack);

    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 2);
    template.resourcePropertiesCountIs(
      'AWS::Lambda::EventSourceMapping',
      { FunctionResponseTypes: ['ReportBatchItemFailures'] },
      2,
    );
    template.resourcePropertiesCountIs('AWS::SQS::Queue', { FifoQueue: true }, 2);
    template.resourceCountIs('AWS::SQS::Queue', 4);
    template.hasResourceProperties('AWS::SNS::Topic', { FifoTopic: true });
    template.resourceCountIs('AWS::SNS::Subscription', 1);
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: Match.stringLikeRegexp('OrdersBus') },
      EventPattern: { source: ['shop.orders'], 'detail-type': ['OrderPlaced'] },
    });
  });

  it('shares one inbox table and gives every table point-in-time recovery', () => {
    const template = Template.fromStack(referenceApp().stack);

    template.resourceCountIs('AWS::DynamoDB::Table', 5);
    template.resourcePropertiesCountIs(
      'AWS::DynamoDB::Table',
      { TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true } },
      1,
    );
    template.resourcePropertiesCountIs(
      'AWS::DynamoDB::Table',
      { PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } },
      5,
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
});

describe('ReferenceStack grants', () => {
  /** The actions a consumer's role may perform on one table, from the synthesized policies. */
  function actionsOn(
    stack: ReferenceStack,
    consumer: 'ledger' | 'inventory',
    table: Table,
  ): string[] {
    const template = Template.fromStack(stack);
    const role = stack.getLogicalId(stack[consumer].function.role?.node.defaultChild as CfnRole);
    const tableArn = {
      'Fn::GetAtt': [stack.getLogicalId(table.node.defaultChild as CfnTable), 'Arn'],
    };
    return Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(role))
      .flatMap(
        (policy) =>
          policy.Properties.PolicyDocument.Statement as Array<{
            Action: string | string[];
            Resource: unknown;
          }>,
      )
      .filter((statement) => JSON.stringify(statement.Resource).includes(JSON.stringify(tableArn)))
      .flatMap((statement) => [statement.Action].flat());
  }

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
  });
});

describe('cdk-nag AwsSolutions checks', () => {
  it('find no error in the reference app, with no finding acknowledged', () => {
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
});
