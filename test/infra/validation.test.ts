import { Duration } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { describe, expect, it } from 'vitest';
import { InboxConsumer } from '../../src/cdk/index.js';
import { consumerTemplate, fixtureEntry, freshStack } from './stackFactory.js';

describe('InboxConsumer validation at synth time', () => {
  it.each([
    {
      when: 'the visibility timeout is under 6× the function timeout',
      props: { functionTimeout: Duration.seconds(30), visibilityTimeout: Duration.seconds(120) },
      message: /visibilityTimeout must be at least 6 × functionTimeout = 180 s \(given 120 s\)/,
    },
    {
      when: 'a FIFO batch is larger than 10',
      props: { fifo: true, batchSize: 11 },
      message: /batchSize must be an integer from 1 to 10 for a FIFO queue \(given 11\)/,
    },
    {
      when: 'the DLQ keeps messages no longer than the source queue',
      props: { retentionPeriod: Duration.days(7), deadLetterRetentionPeriod: Duration.days(7) },
      message:
        /deadLetterRetentionPeriod \(604800 s\) must be longer than retentionPeriod \(604800 s\)/,
    },
    {
      when: 'the inbox TTL does not cover a standard queue’s horizon with one redrive (the library’s own dead-letters restart the DLQ clock)',
      props: {
        retentionPeriod: Duration.days(4),
        deadLetterRetentionPeriod: Duration.days(14),
        inboxTtl: Duration.days(19),
      },
      message:
        /inboxTtl \(1641600 s\) must be at least the redelivery horizon with one DLQ redrive, 1900800 s \(retentionPeriod \+ deadLetterRetentionPeriod \+ retentionPeriod/,
    },
    {
      when: 'the inbox TTL does not cover a FIFO queue’s horizon with one redrive (retention + DLQ retention + retention)',
      props: { fifo: true, inboxTtl: Duration.days(19) },
      message:
        /inboxTtl \(1641600 s\) must be at least the redelivery horizon with one DLQ redrive, 1900800 s \(retentionPeriod \+ deadLetterRetentionPeriod \+ retentionPeriod/,
    },
    {
      when: 'the inbox TTL is longer than the library accepts (it would fail every cold start)',
      props: { inboxTtl: Duration.days(400) },
      message: /inboxTtl must be at most 31622400 s, the library's limit \(given 34560000 s\)/,
    },
    {
      when: 'the visibility timeout does not cover 6× the function timeout plus the batching window',
      props: {
        functionTimeout: Duration.seconds(10),
        visibilityTimeout: Duration.seconds(60),
        maxBatchingWindow: Duration.seconds(20),
      },
      message:
        /visibilityTimeout must be at least 6 × functionTimeout \+ maxBatchingWindow = 80 s \(given 60 s\)/,
    },
    {
      when: 'environment tries to override a variable the construct sets',
      props: { environment: { INBOX_TABLE_NAME: 'other' } },
      message: /environment may not set INBOX_TABLE_NAME/,
    },
    {
      when: 'maxReceiveCount is below 2',
      props: { maxReceiveCount: 1 },
      message: /maxReceiveCount must be an integer from 2 to 1000 \(given 1\)/,
    },
    {
      when: 'a standard batch above 10 has no batching window',
      props: { batchSize: 50 },
      message: /batchSize above 10 \(given 50\) needs a maxBatchingWindow/,
    },
    {
      when: 'content-based deduplication is asked of a standard queue',
      props: { contentBasedDeduplication: true },
      message: /contentBasedDeduplication is only for FIFO queues/,
    },
    {
      when: 'a FIFO queue is given a batching window',
      props: { fifo: true, maxBatchingWindow: Duration.seconds(5) },
      message: /maxBatchingWindow is not supported for FIFO queues/,
    },
    {
      when: 'maxConcurrency is out of range',
      props: { maxConcurrency: 1 },
      message: /maxConcurrency must be an integer from 2 to 1000 \(given 1\)/,
    },
    {
      when: 'the consumer name has a #',
      props: { consumerName: 'orders#eu' },
      message: /consumerName must be 1-128 characters/,
    },
  ])('fails when $when, naming the value and the fix', ({ props, message }) => {
    expect(() => consumerTemplate(props)).toThrow(message);
  });

  it('defaults the inbox TTL to the horizon with one redrive plus a day: 4 + 14 + 4 + 1 days, standard and FIFO', () => {
    const standard = consumerTemplate();
    const fifo = consumerTemplate({ fifo: true });

    for (const [{ template }, days] of [
      [standard, 23],
      [fifo, 23],
    ] as const) {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: { Variables: Match.objectLike({ INBOX_TTL_SECONDS: String(days * 86_400) }) },
      });
    }
  });

  it('needs a batching window of at least 1 second for a standard batch above 10, as Lambda does: 0 s is refused, 1 s taken', () => {
    expect(() =>
      consumerTemplate({ batchSize: 10, maxBatchingWindow: Duration.seconds(0) }),
    ).not.toThrow();
    expect(() =>
      consumerTemplate({ batchSize: 11, maxBatchingWindow: Duration.seconds(0) }),
    ).toThrow(
      /^InboxConsumer orders: a batchSize above 10 \(given 11\) needs a maxBatchingWindow of at least 1 second \(given 0 s\)\.$/,
    );
    const { template } = consumerTemplate({
      batchSize: 11,
      maxBatchingWindow: Duration.seconds(1),
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 11,
      MaximumBatchingWindowInSeconds: 1,
    });
  });

  it('accepts a standard batch above 10 with a batching window', () => {
    expect(() =>
      consumerTemplate({ batchSize: 100, maxBatchingWindow: Duration.seconds(5) }),
    ).not.toThrow();
  });

  it('fails when two consumers share one consumerName on one inbox table, naming both and the fix', () => {
    const stack = freshStack();
    const shared = new Table(stack, 'Shared', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
    });
    new InboxConsumer(stack, 'First', {
      consumerName: 'ledger',
      entry: fixtureEntry,
      inboxTable: shared,
    });

    expect(
      () =>
        new InboxConsumer(stack, 'Second', {
          consumerName: 'ledger',
          entry: fixtureEntry,
          inboxTable: Table.fromTableName(stack, 'SameByName', 'inbox'),
        }),
    ).not.toThrow();
    expect(
      () =>
        new InboxConsumer(stack, 'Third', {
          consumerName: 'ledger',
          entry: fixtureEntry,
          inboxTable: shared,
        }),
    ).toThrow(
      /InboxConsumer ledger: .*First already uses consumerName "ledger" on this inbox table.*Give each consumer its own consumerName/,
    );
    expect(
      () =>
        new InboxConsumer(stack, 'Fourth', {
          consumerName: 'ledger',
          entry: fixtureEntry,
          inboxTable: Table.fromTableName(stack, 'SameNameAgain', 'inbox'),
        }),
    ).toThrow(/Second already uses consumerName "ledger"/);
  });

  it('fails when the inbox table is also a business table', () => {
    const stack = freshStack();
    const shared = new Table(stack, 'Shared', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
    });

    expect(
      () =>
        new InboxConsumer(stack, 'Consumer', {
          consumerName: 'ledger',
          entry: fixtureEntry,
          inboxTable: shared,
          businessTables: { inbox: shared },
        }),
    ).toThrow(/InboxConsumer ledger: the inbox table is also listed in businessTables/);
  });
});
