import { type App, Duration, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { Alias } from 'aws-cdk-lib/aws-kms';
import { Bucket, EventType } from 'aws-cdk-lib/aws-s3';
import { SubscriptionFilter, Topic } from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { InboxConsumer, MessageKey, QueueSource } from '../../src/cdk/index.js';
import { inboxConfigFromEnvironment } from '../../src/index.js';
import { fixtureEntry, freshStack } from './stackFactory.js';

type Sources = (
  stack: ReturnType<typeof freshStack>,
) => Partial<ConstructorParameters<typeof InboxConsumer>[2]>;

function consumerWith(props: Sources) {
  const stack = freshStack();
  const consumer = new InboxConsumer(stack, 'Consumer', {
    ...props(stack),
    consumer: 'stock',
    function: { entry: fixtureEntry },
  });
  return { stack, consumer, template: Template.fromStack(stack) };
}

function functionVariables(template: Template): Record<string, unknown> {
  const [fn] = Object.values(
    template.findResources('AWS::Lambda::Function', { Properties: { Handler: 'index.handler' } }),
  );
  return fn?.Properties.Environment.Variables as Record<string, unknown>;
}

/** The statements of the consumer queue's policy that allow a service to send. */
function sendStatements(
  template: Template,
  stack: ReturnType<typeof freshStack>,
  consumer: InboxConsumer,
) {
  const queueId = stack.getLogicalId(consumer.queue.node.defaultChild as never);
  const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy')).filter((policy) =>
    JSON.stringify(policy.Properties.Queues).includes(queueId),
  );
  return policies
    .flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as Array<Record<string, unknown>>,
    )
    .filter((statement) => statement.Effect === 'Allow');
}

describe('InboxConsumer sources', () => {
  it('tells the function its messages come from direct producers when no source is declared', () => {
    const { template } = consumerWith(() => ({}));

    expect(functionVariables(template)).toMatchObject({ INBOX_SOURCES: 'sqs' });
    expect(functionVariables(template)).not.toHaveProperty('INBOX_KEY');
  });

  it('subscribes the queue to an SNS topic, with one policy statement limited to that topic', () => {
    const { stack, consumer, template } = consumerWith((stack) => ({
      sources: [
        QueueSource.snsTopic(new Topic(stack, 'Payments'), {
          filterPolicy: { type: SubscriptionFilter.stringFilter({ allowlist: ['captured'] }) },
        }),
      ],
    }));

    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'sqs',
      TopicArn: { Ref: Match.stringLikeRegexp('Payments') },
      FilterPolicy: { type: ['captured'] },
      RedrivePolicy: {
        deadLetterTargetArn: {
          'Fn::GetAtt': [
            stack.getLogicalId(consumer.deadLetterQueue.node.defaultChild as never),
            'Arn',
          ],
        },
      },
    });
    expect(
      template.findResources('AWS::SNS::Subscription', {
        Properties: { RawMessageDelivery: true },
      }),
    ).toEqual({});
    const statements = sendStatements(template, stack, consumer);
    expect(statements).toEqual([
      expect.objectContaining({
        Action: 'sqs:SendMessage',
        Principal: { Service: 'sns.amazonaws.com' },
        Condition: { ArnEquals: { 'aws:SourceArn': { Ref: expect.stringMatching(/Payments/) } } },
      }),
    ]);
    expect(functionVariables(template)).toMatchObject({ INBOX_SOURCES: 'sns' });
  });

  it('refuses SNS raw delivery without a messageKey at synth, naming the fix', () => {
    expect(() =>
      consumerWith((stack) => ({
        sources: [QueueSource.snsTopic(new Topic(stack, 'Orders'), { rawMessageDelivery: true })],
      })),
    ).toThrow(
      /^TestStack\/Consumer: SNS raw message delivery strips the SNS MessageId.*key: MessageKey\.attribute\('eventId'\)/,
    );
  });

  it('passes a declared key of a raw subscription to the function', () => {
    const { template } = consumerWith((stack) => ({
      sources: [QueueSource.snsTopic(new Topic(stack, 'Orders'), { rawMessageDelivery: true })],
      key: MessageKey.attribute('eventId'),
    }));

    template.hasResourceProperties('AWS::SNS::Subscription', { RawMessageDelivery: true });
    expect(functionVariables(template)).toMatchObject({
      INBOX_SOURCES: 'sns-raw',
      INBOX_KEY: 'attribute:eventId',
    });
  });

  it('accepts a raw subscription whose handler passes its own key, and sets no INBOX_KEY', () => {
    const { template } = consumerWith((stack) => ({
      sources: [QueueSource.snsTopic(new Topic(stack, 'Orders'), { rawMessageDelivery: true })],
      key: MessageKey.inHandler(),
    }));

    expect(functionVariables(template)).not.toHaveProperty('INBOX_KEY');
  });

  it('refuses a declared key that is no attribute name or field path', () => {
    expect(() => MessageKey.field('a..b')).toThrow(
      /MessageKey "field:a..b" is not attribute:<name>/,
    );
  });

  it("makes the queue the target of an EventBridge pattern on a bus, with retries and the consumer's dead-letter queue as the target's", () => {
    const { stack, consumer, template } = consumerWith((stack) => ({
      sources: [
        QueueSource.eventPattern(
          { source: ['shop.orders'], detailType: ['OrderPlaced'] },
          {
            eventBus: new EventBus(stack, 'Bus'),
            retryAttempts: 20,
            maxEventAge: Duration.hours(2),
          },
        ),
      ],
    }));

    expect(consumer.deliveryDeadLetterQueue).toBe(consumer.deadLetterQueue);
    const deliveryDlq = stack.getLogicalId(consumer.deadLetterQueue.node.defaultChild as never);
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: Match.stringLikeRegexp('Bus') },
      EventPattern: { source: ['shop.orders'], 'detail-type': ['OrderPlaced'] },
      Targets: [
        Match.objectLike({
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [deliveryDlq, 'Arn'] } },
          RetryPolicy: { MaximumRetryAttempts: 20, MaximumEventAgeInSeconds: 7200 },
        }),
      ],
    });
    expect(sendStatements(template, stack, consumer)).toEqual([
      expect.objectContaining({
        Principal: { Service: 'events.amazonaws.com' },
        Condition: {
          ArnEquals: {
            'aws:SourceArn': { 'Fn::GetAtt': [expect.stringMatching(/EventRule/), 'Arn'] },
          },
        },
      }),
    ]);
    template.resourceCountIs('AWS::SQS::Queue', 2);
    expect(consumer.alarms.deliveryDeadLetters).toBeUndefined();
    expect(functionVariables(template)).toMatchObject({ INBOX_SOURCES: 'eventbridge' });
  });

  it('adds the queue as a target of an existing rule', () => {
    const { template } = consumerWith((stack) => ({
      sources: [
        QueueSource.eventBridgeRule(
          new Rule(stack, 'Orders', { eventPattern: { source: ['shop'] } }),
        ),
      ],
    }));

    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { source: ['shop'] },
      Targets: [Match.objectLike({ DeadLetterConfig: Match.anyValue() })],
    });
  });

  it('creates no delivery dead-letter queue without an EventBridge source', () => {
    const { consumer } = consumerWith((stack) => ({
      sources: [QueueSource.snsTopic(new Topic(stack, 'T'))],
    }));

    expect(consumer.deliveryDeadLetterQueue).toBeUndefined();
    expect(consumer.alarms.deliveryDeadLetters).toBeUndefined();
  });

  it('sends S3 notifications of a bucket to the queue, the policy limited to the bucket and its account', () => {
    const { stack, consumer, template } = consumerWith((stack) => ({
      sources: [
        QueueSource.s3Bucket(new Bucket(stack, 'Uploads'), {
          events: [EventType.OBJECT_CREATED, EventType.OBJECT_REMOVED],
          filters: [{ prefix: 'in/', suffix: '.csv' }],
        }),
      ],
    }));

    template.hasResourceProperties('Custom::S3BucketNotifications', {
      NotificationConfiguration: {
        QueueConfigurations: [
          Match.objectLike({ Events: ['s3:ObjectCreated:*'], Filter: Match.anyValue() }),
          Match.objectLike({ Events: ['s3:ObjectRemoved:*'] }),
        ],
      },
    });
    expect(sendStatements(template, stack, consumer)).toEqual([
      expect.objectContaining({
        Principal: { Service: 's3.amazonaws.com' },
        Condition: {
          ArnLike: { 'aws:SourceArn': { 'Fn::GetAtt': [expect.stringMatching(/Uploads/), 'Arn'] } },
          StringEquals: { 'aws:SourceAccount': '123456789012' },
        },
      }),
    ]);
    expect(functionVariables(template)).toMatchObject({ INBOX_SOURCES: 's3' });
  });

  it('writes one policy statement per source, and lists each kind once for the function', () => {
    const { stack, consumer, template } = consumerWith((stack) => ({
      sources: [
        QueueSource.snsTopic(new Topic(stack, 'A')),
        QueueSource.snsTopic(new Topic(stack, 'B')),
        QueueSource.eventPattern({ source: ['shop'] }),
        QueueSource.direct(),
      ],
      key: MessageKey.field('eventId'),
    }));

    expect(sendStatements(template, stack, consumer)).toHaveLength(3);
    expect(functionVariables(template)).toMatchObject({ INBOX_SOURCES: 'sns,eventbridge,sqs' });
  });

  it.each([
    {
      case: 'a standard topic on a FIFO queue',
      sources: (stack: ReturnType<typeof freshStack>) => [
        QueueSource.snsTopic(new Topic(stack, 'T')),
      ],
      message: /a FIFO queue can subscribe to FIFO topics only/,
    },
    {
      case: 'an EventBridge target on a FIFO queue without a message group',
      sources: () => [QueueSource.eventPattern({ source: ['shop'] })],
      message: /needs a messageGroupId/,
    },
    {
      case: 'S3 notifications to a FIFO queue',
      sources: (stack: ReturnType<typeof freshStack>) => [
        QueueSource.s3Bucket(new Bucket(stack, 'B')),
      ],
      message: /S3 cannot send event notifications to a FIFO queue/,
    },
  ])('refuses $case at synth', ({ sources, message }) => {
    expect(() =>
      consumerWith((stack) => ({ sources: sources(stack), queue: { fifo: true } })),
    ).toThrow(message);
  });

  it('subscribes a FIFO queue to a FIFO topic (its DLQ the consumer’s), and gives EventBridge events on a FIFO queue their group and a standard dead-letter queue with an alarm', () => {
    const { stack, consumer, template } = consumerWith((stack) => ({
      sources: [
        QueueSource.snsTopic(new Topic(stack, 'T', { fifo: true })),
        QueueSource.eventPattern({ source: ['shop'] }, { messageGroupId: 'orders' }),
      ],
      queue: { fifo: true, contentBasedDeduplication: true },
    }));

    template.resourceCountIs('AWS::SNS::Subscription', 1);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      RedrivePolicy: {
        deadLetterTargetArn: {
          'Fn::GetAtt': [
            stack.getLogicalId(consumer.deadLetterQueue.node.defaultChild as never),
            'Arn',
          ],
        },
      },
    });
    const delivery = consumer.deliveryDeadLetterQueue;
    const deliveryId = stack.getLogicalId(delivery?.node.defaultChild as never);
    template.hasResourceProperties('AWS::Events::Rule', {
      Targets: [
        Match.objectLike({
          SqsParameters: { MessageGroupId: 'orders' },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [deliveryId, 'Arn'] } },
        }),
      ],
    });
    expect(delivery).not.toBe(consumer.deadLetterQueue);
    expect(template.toJSON().Resources[deliveryId].Properties.FifoQueue).toBeUndefined();
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deliveryId, 'QueueName'] } }],
      Threshold: 0,
    });
    expect(consumer.alarms.deliveryDeadLetters).toBeDefined();
  });

  it("passes cdk-nag's AwsSolutions checks with SNS and EventBridge sources, FIFO and standard", () => {
    for (const fifo of [false, true]) {
      const stack = freshStack();
      const topic = new Topic(stack, 'Topic', {
        fifo,
        enforceSSL: true,
        masterKey: Alias.fromAliasName(stack, 'SnsKey', 'alias/aws/sns'),
      });
      new InboxConsumer(stack, 'Consumer', {
        sources: [
          QueueSource.snsTopic(topic),
          QueueSource.eventPattern({ source: ['shop'] }, fifo ? { messageGroupId: 'shop' } : {}),
        ],
        consumer: 'stock',
        function: { entry: fixtureEntry },
        queue: { fifo: fifo, contentBasedDeduplication: fifo || undefined },
      });
      Validations.of(stack).addPlugins(new AwsSolutionsChecks(stack));

      expect(() => (stack.node.root as App).synth()).not.toThrow();
    }
  });

  it('refuses EventBridge on a FIFO queue without content-based deduplication: EventBridge sends no deduplication id', () => {
    expect(() =>
      consumerWith(() => ({
        sources: [QueueSource.eventPattern({ source: ['shop'] }, { messageGroupId: 'shop' })],
        queue: { fifo: true },
      })),
    ).toThrow(/needs queue.contentBasedDeduplication: true/);
  });

  it('refuses direct producers declared among sources without a messageKey, naming the fix', () => {
    expect(() =>
      consumerWith((stack) => ({
        sources: [QueueSource.snsTopic(new Topic(stack, 'T')), QueueSource.direct()],
      })),
    ).toThrow(/direct producers .* send no upstream id.*MessageKey\.inHandler\(\)/);
  });

  it('refuses an empty sources list', () => {
    expect(() => consumerWith(() => ({ sources: [] }))).toThrow(/sources is empty/);
  });

  it('hands the function the sources and key the construct declares, through the environment contract', () => {
    const { template } = consumerWith((stack) => ({
      sources: [
        QueueSource.snsTopic(new Topic(stack, 'Orders'), { rawMessageDelivery: true }),
        QueueSource.eventPattern({ source: ['shop'] }),
      ],
      key: MessageKey.field('orderId'),
    }));
    const variables = Object.fromEntries(
      Object.entries(functionVariables(template)).map(([name, value]) => [
        name,
        typeof value === 'string'
          ? value
          : name.endsWith('_URL')
            ? 'https://sqs.eu-west-1.amazonaws.com/1/q'
            : 'deployed-table',
      ]),
    );

    const { options } = inboxConfigFromEnvironment({ env: variables });

    expect(options.sources).toEqual(['sns-raw', 'eventbridge']);
    expect(options.key?.({ body: { orderId: 'o-9' } } as never)).toBe('o-9');
  });
});
