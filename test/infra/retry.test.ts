import { CfnParameter, Duration, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import type { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { InboxConsumer, InboxValidationError, QueueSource } from '../../src/cdk/index.js';
import {
  consumerTemplate,
  freshStack,
  roleStatements,
  type TestConsumerProps,
  withFixture,
} from './stackFactory.js';

/** The synthesized environment variables of the consumer's function. */
function variablesOf(stack: Stack, template: Template, consumer: InboxConsumer) {
  const id = stack.getLogicalId(consumer.function.node.defaultChild as CfnFunction);
  return template.toJSON().Resources[id].Properties.Environment.Variables as Record<
    string,
    unknown
  >;
}

function retryVariablesOf(stack: Stack, template: Template, consumer: InboxConsumer) {
  return Object.fromEntries(
    Object.entries(variablesOf(stack, template, consumer)).filter(([name]) =>
      name.startsWith('INBOX_RETRY_'),
    ),
  );
}

/** The resources of every statement of the function's role that allows ChangeMessageVisibility. */
function visibilityResources(stack: Stack, template: Template, consumer: InboxConsumer) {
  const statements = roleStatements(stack, consumer.function, template).filter((statement) =>
    [statement.Action].flat().includes('sqs:ChangeMessageVisibility'),
  );
  expect(statements.length).toBeGreaterThan(0);
  return statements.flatMap((statement) => [statement.Resource].flat());
}

function arnOf(stack: Stack, queue: InboxConsumer['queue']) {
  return { 'Fn::GetAtt': [stack.getLogicalId(queue.node.defaultChild as CfnQueue), 'Arn'] };
}

const oneHourQueue = {
  queue: { retentionPeriod: Duration.hours(1) },
  deadLetter: { retentionPeriod: Duration.days(1), maxReceiveCount: 30 },
} satisfies TestConsumerProps;

/** A day's retention and 4 receives: the longest path to the DLQ is 4 × (180 s + maxDelay). */
const oneDayQueue = {
  queue: { retentionPeriod: Duration.days(1) },
  deadLetter: { retentionPeriod: Duration.days(2), maxReceiveCount: 4 },
} satisfies TestConsumerProps;

describe('InboxConsumer retry', () => {
  it('re-times lease-held copies by default: the lease-held margin of 2 s and no backoff reach the function', () => {
    const { stack, template, consumer } = consumerTemplate();

    expect(retryVariablesOf(stack, template, consumer)).toEqual({
      INBOX_RETRY_LEASE_HELD_MARGIN_SECONDS: '2',
    });
  });

  it('sets no INBOX_RETRY_* variable with retry: false', () => {
    const { stack, template, consumer } = consumerTemplate({ retry: false });

    expect(retryVariablesOf(stack, template, consumer)).toEqual({});
    expect(variablesOf(stack, template, consumer)).toHaveProperty('INBOX_CONSUMER', 'orders');
  });

  it('gives the function the backoff and the margin in whole seconds', () => {
    const { stack, template, consumer } = consumerTemplate({
      retry: {
        backoff: { firstDelay: Duration.seconds(5), maxDelay: Duration.minutes(15) },
        leaseHeldMargin: Duration.seconds(10),
      },
    });

    expect(retryVariablesOf(stack, template, consumer)).toEqual({
      INBOX_RETRY_FIRST_DELAY_SECONDS: '5',
      INBOX_RETRY_MAX_DELAY_SECONDS: '900',
      INBOX_RETRY_LEASE_HELD_MARGIN_SECONDS: '10',
    });
  });

  it('gives an existing function the retry variables too', () => {
    const stack = freshStack();
    const mine = new LambdaFunction(stack, 'Mine', {
      runtime: Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] });'),
    });
    const consumer = new InboxConsumer(stack, 'Consumer', {
      consumer: 'orders',
      existingFunction: mine,
      retry: { backoff: { firstDelay: Duration.seconds(3), maxDelay: Duration.seconds(60) } },
    });
    const template = Template.fromStack(stack);

    expect(retryVariablesOf(stack, template, consumer)).toEqual({
      INBOX_RETRY_FIRST_DELAY_SECONDS: '3',
      INBOX_RETRY_MAX_DELAY_SECONDS: '60',
      INBOX_RETRY_LEASE_HELD_MARGIN_SECONDS: '2',
    });
    expect(visibilityResources(stack, template, consumer)).toEqual([arnOf(stack, consumer.queue)]);
  });

  it('allows ChangeMessageVisibility on the source queue only, not on the DLQ nor any *', () => {
    const { stack, template, consumer } = consumerTemplate({
      queue: { fifo: true, contentBasedDeduplication: true },
      sources: [QueueSource.eventPattern({ source: ['shop'] }, { messageGroupId: 'shop' })],
    });

    const resources = visibilityResources(stack, template, consumer);

    expect(resources).toEqual([arnOf(stack, consumer.queue)]);
    expect(resources).not.toContainEqual(arnOf(stack, consumer.deadLetterQueue));
    expect(consumer.deliveryDeadLetterQueue).toBeDefined();
  });

  it.each<{ when: string; retry: TestConsumerProps['retry']; rest?: TestConsumerProps }>([
    {
      when: 'maxDelay is 42,000 s, the largest',
      retry: { backoff: { firstDelay: Duration.seconds(1), maxDelay: Duration.seconds(42_000) } },
    },
    {
      when: 'firstDelay equals maxDelay',
      retry: { backoff: { firstDelay: Duration.seconds(60), maxDelay: Duration.seconds(60) } },
    },
    {
      when: 'the longest path to the DLQ equals the queue’s retention: 4 × (180 s + 21420 s) = 86400 s',
      retry: { backoff: { firstDelay: Duration.seconds(1), maxDelay: Duration.seconds(21_420) } },
      rest: oneDayQueue,
    },
    { when: 'leaseHeldMargin is 0 s', retry: { leaseHeldMargin: Duration.seconds(0) } },
    {
      when: 'leaseHeldMargin is 900 s, the largest',
      retry: { leaseHeldMargin: Duration.minutes(15) },
    },
  ])('accepts a retry where $when', ({ retry, rest }) => {
    expect(() => consumerTemplate({ ...rest, retry })).not.toThrow();
  });

  it('skips the retention check when the queue’s retention is a token', () => {
    const stack = freshStack();
    const retention = new CfnParameter(stack, 'Retention', { type: 'Number' });

    expect(
      () =>
        new InboxConsumer(
          stack,
          'Consumer',
          withFixture({
            queue: { retentionPeriod: Duration.seconds(retention.valueAsNumber) },
            retry: {
              backoff: { firstDelay: Duration.seconds(1), maxDelay: Duration.seconds(42_000) },
            },
          }),
        ),
    ).not.toThrow();
  });

  it.each<{ when: string; props: TestConsumerProps; message: RegExp }>([
    {
      when: 'maxDelay exceeds 42,000 s',
      props: {
        retry: { backoff: { firstDelay: Duration.seconds(1), maxDelay: Duration.seconds(42_001) } },
      },
      message:
        /retry.backoff.maxDelay \(42001 s\) exceeds 42000 s: SQS refuses .* Lower retry.backoff.maxDelay/,
    },
    {
      when: 'firstDelay is under 1 s',
      props: {
        retry: { backoff: { firstDelay: Duration.seconds(0), maxDelay: Duration.seconds(60) } },
      },
      message: /retry.backoff.firstDelay must be at least 1 s \(given 0 s\)/,
    },
    {
      when: 'firstDelay exceeds maxDelay',
      props: {
        retry: { backoff: { firstDelay: Duration.seconds(61), maxDelay: Duration.seconds(60) } },
      },
      message:
        /retry.backoff.firstDelay \(61 s\) exceeds retry.backoff.maxDelay \(60 s\).*Lower firstDelay or raise maxDelay/,
    },
    {
      when: 'maxDelay is not shorter than the queue’s retention',
      props: {
        ...oneHourQueue,
        ttl: Duration.days(5),
        retry: { backoff: { firstDelay: Duration.seconds(1), maxDelay: Duration.seconds(3_600) } },
      },
      message:
        /retry.backoff.maxDelay \(3600 s\) must be shorter than queue.retentionPeriod \(3600 s\).*raise queue.retentionPeriod/,
    },
    {
      when: 'the longest path to the DLQ exceeds the queue’s retention by 4 s',
      props: {
        ...oneDayQueue,
        retry: { backoff: { firstDelay: Duration.seconds(1), maxDelay: Duration.seconds(21_421) } },
      },
      message:
        /deadLetter.maxReceiveCount × \(queue.visibilityTimeout \+ retry.backoff.maxDelay\) = 4 × \(180 s \+ 21421 s\) = 86404 s, exceeds queue.retentionPeriod \(86400 s\).*Raise queue.retentionPeriod, or lower deadLetter.maxReceiveCount or retry.backoff.maxDelay/,
    },
    {
      when: 'without retry, the receives alone outlast the queue’s retention',
      props: {
        queue: { retentionPeriod: Duration.minutes(10) },
        deadLetter: { maxReceiveCount: 4 },
        retry: false,
      },
      message:
        /deadLetter.maxReceiveCount × \(queue.visibilityTimeout\) = 4 × \(180 s\) = 720 s, exceeds queue.retentionPeriod \(600 s\).*or queue.visibilityTimeout/,
    },
    {
      when: 'with retry: {}, the receives alone outlast the queue’s retention',
      props: {
        queue: { retentionPeriod: Duration.minutes(10) },
        deadLetter: { maxReceiveCount: 4 },
      },
      message: /= 4 × \(180 s\) = 720 s, exceeds queue.retentionPeriod \(600 s\)/,
    },
    {
      when: 'a delay is not whole seconds',
      props: {
        retry: { backoff: { firstDelay: Duration.millis(1_500), maxDelay: Duration.seconds(60) } },
      },
      message: /retry.backoff.firstDelay must be whole seconds \(given 1.5 s\)/,
    },
    {
      when: 'leaseHeldMargin exceeds 900 s',
      props: { retry: { leaseHeldMargin: Duration.seconds(901) } },
      message: /retry.leaseHeldMargin must be from 0 to 900 s \(given 901 s\)/,
    },
    {
      when: 'the backoff lacks maxDelay',
      props: { retry: { backoff: { firstDelay: Duration.seconds(5) } } } as TestConsumerProps,
      message: /retry.backoff needs both firstDelay and maxDelay/,
    },
    {
      when: 'retry holds a prop it does not know',
      props: { retry: { backof: {} } } as TestConsumerProps,
      message: /retry.backof is not a prop; the known ones are backoff, leaseHeldMargin/,
    },
    {
      when: 'the backoff holds a prop it does not know',
      props: {
        retry: {
          backoff: { firstDelay: Duration.seconds(1), maxDelay: Duration.seconds(2), jitter: 1 },
        },
      } as TestConsumerProps,
      message: /retry.backoff.jitter is not a prop; the known ones are firstDelay, maxDelay/,
    },
  ])('fails when $when, naming the numbers and the fix', ({ props, message }) => {
    const attempt = () => consumerTemplate(props);

    expect(attempt).toThrow(InboxValidationError);
    expect(attempt).toThrow(/^TestStack\/Consumer: /);
    expect(attempt).toThrow(message);
  });
});
