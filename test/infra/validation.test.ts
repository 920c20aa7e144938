import { Duration } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { describe, expect, it } from 'vitest';
import { InboxConsumer, InboxValidationError } from '../../src/cdk/index.js';
import {
  consumerTemplate,
  fixtureEntry,
  freshStack,
  type TestConsumerProps,
} from './stackFactory.js';

describe('InboxConsumer validation at synth time', () => {
  it.each<{ when: string; props: TestConsumerProps; message: RegExp }>([
    {
      when: 'the visibility timeout is under 6× the function timeout',
      props: {
        function: { timeout: Duration.seconds(30) },
        queue: { visibilityTimeout: Duration.seconds(120) },
      },
      message:
        /queue.visibilityTimeout must be at least 6 × the function's timeout = 180 s \(given 120 s\)/,
    },
    {
      when: 'a FIFO batch is larger than 10',
      props: { queue: { fifo: true }, eventSource: { batchSize: 11 } },
      message:
        /eventSource.batchSize must be an integer from 1 to 10 for a FIFO queue \(given 11\)/,
    },
    {
      when: 'the DLQ keeps messages no longer than the source queue',
      props: {
        queue: { retentionPeriod: Duration.days(7) },
        deadLetter: { retentionPeriod: Duration.days(7) },
      },
      message:
        /deadLetter.retentionPeriod \(604800 s\) must be longer than queue.retentionPeriod \(604800 s\)/,
    },
    {
      when: 'the inbox TTL does not cover a standard queue’s horizon with one redrive (the library’s own dead-letters restart the DLQ clock)',
      props: {
        queue: { retentionPeriod: Duration.days(4) },
        deadLetter: { retentionPeriod: Duration.days(14) },
        ttl: Duration.days(19),
      },
      message:
        /ttl \(1641600 s\) must be at least the redelivery horizon with one DLQ redrive, 1900800 s \(queue.retentionPeriod \+ deadLetter.retentionPeriod \+ queue.retentionPeriod/,
    },
    {
      when: 'the inbox TTL does not cover a FIFO queue’s horizon with one redrive (retention + DLQ retention + retention)',
      props: { queue: { fifo: true }, ttl: Duration.days(19) },
      message:
        /ttl \(1641600 s\) must be at least the redelivery horizon with one DLQ redrive, 1900800 s/,
    },
    {
      when: 'the inbox TTL is longer than the library accepts (it would fail every cold start)',
      props: { ttl: Duration.days(400) },
      message: /ttl must be at most 31622400 s, the library's limit \(given 34560000 s\)/,
    },
    {
      when: 'the visibility timeout does not cover 6× the function timeout plus the batching window',
      props: {
        function: { timeout: Duration.seconds(10) },
        queue: { visibilityTimeout: Duration.seconds(60) },
        eventSource: { maxBatchingWindow: Duration.seconds(20) },
      },
      message:
        /queue.visibilityTimeout must be at least 6 × the function's timeout \+ eventSource.maxBatchingWindow = 80 s \(given 60 s\)/,
    },
    {
      when: 'environment tries to override a variable the construct sets',
      props: { function: { environment: { INBOX_TABLE_NAME: 'other' } } },
      message: /function.environment may not set INBOX_TABLE_NAME/,
    },
    {
      when: 'maxReceiveCount is below 2',
      props: { deadLetter: { maxReceiveCount: 1 } },
      message: /deadLetter.maxReceiveCount must be an integer from 2 to 1000 \(given 1\)/,
    },
    {
      when: 'a standard batch above 10 has no batching window',
      props: { eventSource: { batchSize: 50 } },
      message: /eventSource.batchSize above 10 \(given 50\) needs an eventSource.maxBatchingWindow/,
    },
    {
      when: 'content-based deduplication is asked of a standard queue',
      props: { queue: { contentBasedDeduplication: true } },
      message: /queue.contentBasedDeduplication is only for FIFO queues/,
    },
    {
      when: 'a FIFO queue is given a batching window',
      props: { queue: { fifo: true }, eventSource: { maxBatchingWindow: Duration.seconds(5) } },
      message: /eventSource.maxBatchingWindow is not supported for FIFO queues/,
    },
    {
      when: 'maxConcurrency is out of range',
      props: { eventSource: { maxConcurrency: 1 } },
      message: /eventSource.maxConcurrency must be an integer from 2 to 1000 \(given 1\)/,
    },
    {
      when: 'the consumer name has a #',
      props: { consumer: 'orders#eu' },
      message: /consumer must be 1-128 characters/,
    },
    {
      when: 'a prop of 0.1.0 is given by its old name',
      props: { consumerName: 'orders' } as TestConsumerProps,
      message: /consumerName is now consumer \(CHANGELOG.md lists every renamed prop\)/,
    },
    {
      when: 'a group holds a prop it does not know',
      props: { queue: { fifoo: true } } as TestConsumerProps,
      message: /queue.fifoo is not a prop; the known ones are fifo, contentBasedDeduplication/,
    },
    {
      when: 'both a function to create and an existing function are given',
      props: { existingFunction: {} as never, function: {} },
      message: /give function or existingFunction, not both/,
    },
  ])('fails when $when, naming the value and the fix', ({ props, message }) => {
    const attempt = () => consumerTemplate(props);

    expect(attempt).toThrow(InboxValidationError);
    expect(attempt).toThrow(/^TestStack\/Consumer: /);
    expect(attempt).toThrow(message);
  });

  it('defaults the inbox TTL to the horizon with one redrive plus a day: 4 + 14 + 4 + 1 days, standard and FIFO', () => {
    const standard = consumerTemplate();
    const fifo = consumerTemplate({ queue: { fifo: true } });

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
      consumerTemplate({ eventSource: { batchSize: 10, maxBatchingWindow: Duration.seconds(0) } }),
    ).not.toThrow();
    expect(() =>
      consumerTemplate({ eventSource: { batchSize: 11, maxBatchingWindow: Duration.seconds(0) } }),
    ).toThrow(
      /^TestStack\/Consumer: an eventSource.batchSize above 10 \(given 11\) needs an eventSource.maxBatchingWindow of at least 1 second \(given 0 s\)\.$/,
    );
    const { template } = consumerTemplate({
      eventSource: { batchSize: 11, maxBatchingWindow: Duration.seconds(1) },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 11,
      MaximumBatchingWindowInSeconds: 1,
    });
  });

  it('accepts a standard batch above 10 with a batching window', () => {
    expect(() =>
      consumerTemplate({ eventSource: { batchSize: 100, maxBatchingWindow: Duration.seconds(5) } }),
    ).not.toThrow();
  });

  it('fails when two consumers share one consumer name on one inbox table, naming both and the fix', () => {
    const stack = freshStack();
    const shared = new Table(stack, 'Shared', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
    });
    new InboxConsumer(stack, 'First', {
      inboxTable: shared,
      consumer: 'ledger',
      function: { entry: fixtureEntry },
    });

    expect(
      () =>
        new InboxConsumer(stack, 'Second', {
          inboxTable: Table.fromTableName(stack, 'SameByName', 'inbox'),
          consumer: 'ledger',
          function: { entry: fixtureEntry },
        }),
    ).not.toThrow();
    expect(
      () =>
        new InboxConsumer(stack, 'Third', {
          inboxTable: shared,
          consumer: 'ledger',
          function: { entry: fixtureEntry },
        }),
    ).toThrow(
      /^TestStack\/Third: TestStack\/First already uses consumer "ledger" on this inbox table.*Give each consumer its own name/,
    );
    expect(
      () =>
        new InboxConsumer(stack, 'Fourth', {
          inboxTable: Table.fromTableName(stack, 'SameNameAgain', 'inbox'),
          consumer: 'ledger',
          function: { entry: fixtureEntry },
        }),
    ).toThrow(/Second already uses consumer "ledger"/);
  });

  it('fails when the inbox table is also a business table', () => {
    const stack = freshStack();
    const shared = new Table(stack, 'Shared', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
    });

    expect(
      () =>
        new InboxConsumer(stack, 'Consumer', {
          inboxTable: shared,
          businessTables: { inbox: shared },
          consumer: 'ledger',
          function: { entry: fixtureEntry },
        }),
    ).toThrow(/^TestStack\/Consumer: the inbox table is also listed in businessTables/);
  });
});
