import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, type CfnTable, Table } from 'aws-cdk-lib/aws-dynamodb';
import { describe, expect, it } from 'vitest';
import { InboxConsumer } from '../../src/cdk/index.js';
import { inboxConfigFromEnvironment } from '../../src/index.js';
import { fixtureEntry, freshStack } from './stackFactory.js';

/** The variables as a deployed function sees them: each CloudFormation token becomes a name. */
function asDeployed(variables: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(variables).map(([name, value]) => [
      name,
      typeof value === 'string' ? value : `deployed-${name}`,
    ]),
  );
}

describe('the environment contract between InboxConsumer and inboxConfigFromEnvironment', () => {
  it('gives the library every variable it reads, and the business tables by their names', () => {
    const stack = freshStack();
    const accounts = new Table(stack, 'Accounts', {
      partitionKey: { name: 'accountId', type: AttributeType.STRING },
    });
    new InboxConsumer(stack, 'Ledger', {
      consumerName: 'ledger',
      entry: fixtureEntry,
      fifo: true,
      businessTables: { accounts },
    });
    const [fn] = Object.values(
      Template.fromStack(stack).findResources('AWS::Lambda::Function', {
        Properties: { Handler: 'index.handler' },
      }),
    );
    const variables = fn?.Properties.Environment.Variables as Record<string, unknown>;

    const inbox = inboxConfigFromEnvironment({ env: asDeployed(variables) });

    expect(inbox.options.consumer).toBe('ledger');
    expect(inbox.options.ttlSeconds).toBe(19 * 86_400);
    expect(inbox.options.store.tableName).toBe('deployed-INBOX_TABLE_NAME');
    expect(inbox.table('accounts')).toBe('deployed-INBOX_BUSINESS_TABLE_accounts');
    expect(variables.INBOX_BUSINESS_TABLE_accounts).toEqual({
      Ref: stack.getLogicalId(accounts.node.defaultChild as CfnTable),
    });
  });
});
