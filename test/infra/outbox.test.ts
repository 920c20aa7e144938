import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Alias } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { InboxConsumer, type InboxOutboxProps } from '../../src/cdk/index.js';
import { inboxConfigFromEnvironment } from '../../src/index.js';
import {
  expectNagCleanAndAbleToFail,
  fixtureEntry,
  freshStack,
  roleStatements,
} from './stackFactory.js';

/** A consumer with an outbox toward a FIFO queue, a topic and a bus, and its template. */
function consumerWithOutbox(outbox: Partial<InboxOutboxProps> = {}) {
  const built = buildConsumerWithOutbox(outbox);
  return { ...built, template: Template.fromStack(built.stack) };
}

/** The same, not synthesized yet (for cdk-nag, which runs at the app's synth). */
function buildConsumerWithOutbox(outbox: Partial<InboxOutboxProps> = {}) {
  const stack = freshStack();
  const creditsDlq = new Queue(stack, 'CreditsDlq', {
    fifo: true,
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
  });
  const credits = new Queue(stack, 'Credits', {
    fifo: true,
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    deadLetterQueue: { queue: creditsDlq, maxReceiveCount: 5 },
  });
  const topic = new Topic(stack, 'Events', {
    enforceSSL: true,
    masterKey: Alias.fromAliasName(stack, 'SnsKey', 'alias/aws/sns'),
  });
  const bus = new EventBus(stack, 'Bus');
  const consumer = new InboxConsumer(stack, 'Consumer', {
    outbox: { destinations: { credits, events: topic, bus }, ...outbox },
    consumer: 'ledger',
    function: { entry: fixtureEntry },
  });
  return { stack, consumer, credits, topic, bus };
}

/** Every statement of a function role's policies. */
function statementsOf(setup: ReturnType<typeof consumerWithOutbox>, fn: IFunction | undefined) {
  if (fn === undefined) throw new Error('no function');
  return roleStatements(setup.stack, fn, setup.template);
}

const refOf = (
  setup: ReturnType<typeof consumerWithOutbox>,
  construct: { node: { defaultChild?: unknown } },
) => setup.stack.getLogicalId(construct.node.defaultChild as never);

describe('InboxConsumer outbox', () => {
  it('creates the outbox table with a stream of new images, TTL on expiresAt and point-in-time recovery', () => {
    const { template } = consumerWithOutbox();
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  it('maps the stream to the relay: new and changed items only, bisect, partial batch responses, retries, a maximum age and the dead-letter queue on failure', () => {
    const setup = consumerWithOutbox();
    const dlq = refOf(setup, setup.consumer.outbox?.deadLetterQueue as never);
    setup.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: {
        'Fn::GetAtt': [refOf(setup, setup.consumer.outbox?.table as never), 'StreamArn'],
      },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: 21_600,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      FilterCriteria: {
        Filters: [{ Pattern: JSON.stringify({ eventName: ['INSERT', 'MODIFY'] }) }],
      },
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [dlq, 'Arn'] } } },
    });
  });

  it('takes the mapping settings given', () => {
    const { template } = consumerWithOutbox({
      batchSize: 10,
      retryAttempts: 2,
      maxRecordAge: Duration.hours(1),
      parallelizationFactor: 4,
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 10,
      MaximumRetryAttempts: 2,
      MaximumRecordAgeInSeconds: 3600,
      ParallelizationFactor: 4,
    });
  });

  it('lets the relay send to exactly the named destinations, and nothing on a wildcard resource', () => {
    const setup = consumerWithOutbox();
    const statements = statementsOf(setup, setup.consumer.outbox?.function);
    const on = (action: string) =>
      statements.filter((s) => [s.Action].flat().includes(action)).map((s) => s.Resource);
    expect(on('sqs:SendMessage')).toEqual(
      expect.arrayContaining([
        { 'Fn::GetAtt': [refOf(setup, setup.credits), 'Arn'] },
        { 'Fn::GetAtt': [refOf(setup, setup.consumer.outbox?.deadLetterQueue as never), 'Arn'] },
      ]),
    );
    expect(on('sqs:SendMessage')).toHaveLength(2);
    expect(on('sns:Publish')).toEqual([{ Ref: refOf(setup, setup.topic) }]);
    expect(on('events:PutEvents')).toEqual([{ 'Fn::GetAtt': [refOf(setup, setup.bus), 'Arn'] }]);
    // ListStreams has no resource-level permission: the stream read's one wildcard, and the only one.
    const onWildcard = statements.filter((s) => JSON.stringify(s.Resource) === '"*"');
    expect(onWildcard.flatMap((s) => [s.Action].flat())).toEqual(['dynamodb:ListStreams']);
    expect(
      statements
        .flatMap((s) => [s.Action].flat())
        .filter((a) => /^dynamodb:(Put|Update|Delete)/.test(a)),
    ).toEqual([]);
  });

  it('lets the consumer write the outbox table (put and update), and gives it the table, the retention and each destination', () => {
    const setup = consumerWithOutbox({ retention: Duration.days(3) });
    const table = refOf(setup, setup.consumer.outbox?.table as never);
    const onOutbox = statementsOf(setup, setup.consumer.function)
      .filter((s) => JSON.stringify(s.Resource).includes(table))
      .flatMap((s) => [s.Action].flat());
    expect(onOutbox.sort()).toEqual(['dynamodb:PutItem', 'dynamodb:UpdateItem']);
    setup.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          INBOX_OUTBOX_TABLE_NAME: { Ref: table },
          INBOX_OUTBOX_RETENTION_SECONDS: String(3 * 86_400),
          INBOX_DESTINATION_credits: { Ref: refOf(setup, setup.credits) },
          INBOX_DESTINATION_events: { Ref: refOf(setup, setup.topic) },
          INBOX_DESTINATION_bus: { 'Fn::GetAtt': [refOf(setup, setup.bus), 'Arn'] },
        }),
      },
    });
  });

  it('sets the environment inboxConfigFromEnvironment reads into a store with the outbox and the destinations', () => {
    const config = inboxConfigFromEnvironment({
      env: {
        INBOX_TABLE_NAME: 'inbox',
        INBOX_CONSUMER: 'ledger',
        INBOX_TTL_SECONDS: '86400',
        INBOX_DEAD_LETTER_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/dlq',
        INBOX_MAX_RECEIVE_COUNT: '5',
        INBOX_OUTBOX_TABLE_NAME: 'outbox',
        INBOX_OUTBOX_RETENTION_SECONDS: '259200',
        INBOX_DESTINATION_credits: 'https://sqs.eu-west-1.amazonaws.com/123456789012/credits.fifo',
      },
    });
    expect(config.options.store.outbox).toEqual({ tableName: 'outbox', retentionSeconds: 259_200 });
    expect(config.destination('credits')).toMatch(/credits\.fifo$/);
    expect(() => config.destination('audit')).toThrow(/INBOX_DESTINATION_audit.*has: credits/);
  });

  it('alarms on the dead-letter queue and on the relay falling behind the stream', () => {
    const { template } = consumerWithOutbox({ iteratorAgeAlarmThreshold: Duration.minutes(2) });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'IteratorAge',
      Statistic: 'Maximum',
      Threshold: 120_000,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      // The description names the report command with the queue's URL, a token.
      AlarmDescription: Match.objectLike({
        'Fn::Join': [
          '',
          Match.arrayWith([
            Match.stringLikeRegexp("ledger outbox: messages in the relay's dead-letter queue"),
          ]),
        ],
      }),
    });
  });

  it.each([
    [{ destinations: {} }, /at least one/],
    [{ destinations: { 'bad-name': undefined as never } }, /bad-name/],
    [{ batchSize: 0 }, /batchSize must be an integer from 1 to 10000 inclusive \(given 0\)/],
    [{ retryAttempts: -1 }, /retryAttempts/],
    [{ maxRecordAge: Duration.days(8) }, /maxRecordAge/],
    [{ parallelizationFactor: 11 }, /parallelizationFactor/],
    [{ retention: Duration.hours(1) }, /retention/],
  ])('refuses %j at synth, naming the prop', (outbox, message) => {
    expect(() => consumerWithOutbox(outbox as Partial<InboxOutboxProps>)).toThrow(message);
  });

  it('keeps outbox items at least two days, a day past their stream records: 2 days accepted, one second less refused at synth', () => {
    expect(() => consumerWithOutbox({ retention: Duration.days(2) })).not.toThrow();
    expect(() => consumerWithOutbox({ retention: Duration.seconds(172_799) })).toThrow(
      /retention \(seconds\) must be an integer from 172800 to 31622400 inclusive \(given 172799\)/,
    );
  });

  it("passes cdk-nag's AwsSolutions checks, which do fail on a finding", () => {
    expectNagCleanAndAbleToFail(() => buildConsumerWithOutbox());
  });
});
