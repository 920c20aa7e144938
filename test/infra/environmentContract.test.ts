import { Duration } from 'aws-cdk-lib';
import type { CfnTable } from 'aws-cdk-lib/aws-dynamodb';
import { describe, expect, it } from 'vitest';
import { resolveRetry } from '../../src/core/resolveRetry.js';
import { inboxConfigFromEnvironment } from '../../src/index.js';
import { consumerTemplate, consumerWithAccounts, type TestConsumerProps } from './stackFactory.js';

/**
 * The variables as a deployed function sees them: a `Ref` becomes what CloudFormation returns
 * for the referenced resource — a queue's URL, a table's name (`deployed-<variable>`).
 */
function asDeployed(
  variables: Record<string, unknown>,
  resources: Record<string, { Type: string }>,
): Record<string, string> {
  const resolve = (name: string, value: unknown): string => {
    if (typeof value === 'string') return value;
    const ref = (value as { Ref?: string }).Ref ?? '';
    return resources[ref]?.Type === 'AWS::SQS::Queue'
      ? `https://sqs.eu-west-1.amazonaws.com/123456789012/deployed-${name}`
      : `deployed-${name}`;
  };
  return Object.fromEntries(
    Object.entries(variables).map(([name, value]) => [name, resolve(name, value)]),
  );
}

describe('the environment contract between InboxConsumer and inboxConfigFromEnvironment', () => {
  it('gives the library every variable it reads, and the business tables by their names', () => {
    const { stack, accounts, template } = consumerWithAccounts((accounts) => ({
      businessTables: { accounts },
      consumer: 'ledger',
      queue: { fifo: true },
    }));
    const [fn] = Object.values(
      template.findResources('AWS::Lambda::Function', { Properties: { Handler: 'index.handler' } }),
    );
    const variables = fn?.Properties.Environment.Variables as Record<string, unknown>;

    const inbox = inboxConfigFromEnvironment({
      env: asDeployed(variables, template.toJSON().Resources),
    });

    expect(inbox.options.consumer).toBe('ledger');
    expect(inbox.options.ttlSeconds).toBe(23 * 86_400);
    expect(inbox.options.deadLetter.maxReceiveCount).toBe(5);
    expect(inbox.options.store.tableName).toBe('deployed-INBOX_TABLE_NAME');
    expect(inbox.options.deadLetter.queueUrl).toMatch(/deployed-INBOX_DEAD_LETTER_QUEUE_URL$/);
    expect(inbox.table('accounts')).toBe('deployed-INBOX_BUSINESS_TABLE_accounts');
    expect(variables.INBOX_BUSINESS_TABLE_accounts).toEqual({
      Ref: stack.getLogicalId(accounts.node.defaultChild as CfnTable),
    });
  });

  it.each<{ given: string; retry: TestConsumerProps['retry']; expected: unknown }>([
    { given: 'no retry prop', retry: undefined, expected: { leaseHeldMarginSeconds: 2 } },
    { given: 'retry: false', retry: false, expected: undefined },
    {
      given: 'a backoff and a margin',
      retry: {
        backoff: { firstDelay: Duration.seconds(5), maxDelay: Duration.minutes(15) },
        leaseHeldMargin: Duration.seconds(7),
      },
      expected: {
        backoff: { firstDelaySeconds: 5, maxDelaySeconds: 900 },
        leaseHeldMarginSeconds: 7,
      },
    },
  ])(
    'reads the construct’s retry back as the processor’s retry group, given $given',
    ({ retry, expected }) => {
      const { template } = consumerTemplate(retry === undefined ? {} : { retry });
      const [fn] = Object.values(
        template.findResources('AWS::Lambda::Function', {
          Properties: { Handler: 'index.handler' },
        }),
      );
      const variables = fn?.Properties.Environment.Variables as Record<string, unknown>;

      const { options } = inboxConfigFromEnvironment({
        env: asDeployed(variables, template.toJSON().Resources),
      });

      expect(options.retry).toEqual(expected);
      // The processor accepts what the environment gave.
      expect(() => resolveRetry(options)).not.toThrow();
    },
  );
});
