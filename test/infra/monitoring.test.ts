import { Duration, type Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnLogGroup } from 'aws-cdk-lib/aws-logs';
import { type CfnTopic, Topic } from 'aws-cdk-lib/aws-sns';
import { type CfnQueue, type Queue, Queue as SqsQueue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { InboxConsumer, OutboxRelay } from '../../src/cdk/index.js';
import { CdkContext } from '../../src/constants/index.js';
import { consumerTemplate, fixtureEntry, freshStack } from './stackFactory.js';

/** The `Ref` of a construct's CloudFormation resource. */
const refOf = (stack: Stack, construct: { node: { defaultChild?: unknown } }) => ({
  Ref: stack.getLogicalId(construct.node.defaultChild as CfnFunction),
});
const queueName = (stack: Stack, queue: Queue) => ({
  'Fn::GetAtt': [stack.getLogicalId(queue.node.defaultChild as CfnQueue), 'QueueName'],
});

/** The dashboard's body with its tokens left as objects, as one string to search. */
function dashboardBody(template: Template, index = 0): string {
  const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
  return JSON.stringify(dashboards[index]?.Properties.DashboardBody);
}

describe('InboxConsumer monitoring', () => {
  it('turns the event source mapping’s own metrics on (EventCount)', () => {
    const { template } = consumerTemplate();

    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      MetricsConfig: { Metrics: ['EventCount'] },
    });
  });

  it('alarms on the failure rate by metric math over the library’s counts, at 10 % in two of three 5-minute periods, naming the dlq report command', () => {
    const { stack, consumer, template } = consumerTemplate();

    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Threshold: 10,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      TreatMissingData: 'notBreaching',
      Metrics: Match.arrayWith([
        Match.objectLike({
          Expression: Match.stringLikeRegexp(
            '100 \\* failed / \\(failed \\+ processed \\+ duplicates\\)',
          ),
          ReturnData: true,
        }),
        ...(['failed', 'processed', 'duplicates'] as const).map((id) =>
          Match.objectLike({
            Id: id,
            ReturnData: false,
            MetricStat: Match.objectLike({
              Metric: {
                Namespace: 'SqsInbox',
                MetricName: {
                  failed: 'InboxFailures',
                  processed: 'InboxProcessed',
                  duplicates: 'InboxDuplicates',
                }[id],
                Dimensions: [{ Name: 'service', Value: 'orders' }],
              },
              Period: 300,
              Stat: 'Sum',
            }),
          }),
        ),
      ]),
    });
    const failureRate = consumer.alarms.failureRate?.node.defaultChild as CfnAlarm | undefined;
    expect(failureRate).toBeDefined();
    expect(JSON.stringify(stack.resolve(failureRate?.alarmDescription))).toContain(
      'npx sqs-inbox dlq report --function ',
    );
  });

  it.each([
    ['-c sqs-inbox:metricMathAlarms=false', 'false'],
    ['a boolean false in cdk.json', false],
  ])(
    'leaves out the failure-rate alarm, with an info annotation saying so, when the context says %s (an emulator’s deploy)',
    (_, value) => {
      const { stack, consumer, template } = consumerTemplate(
        {},
        { context: { [CdkContext.MetricMathAlarms]: value } },
      );

      const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
      expect(alarms).toHaveLength(5);
      for (const alarm of alarms) expect(alarm.Properties).not.toHaveProperty('Metrics');
      expect(consumer.alarms.failureRate).toBeUndefined();
      Annotations.fromStack(stack).hasInfo(
        '/TestStack/Consumer',
        Match.stringLikeRegexp('FailureRateAlarm left out .*sqs-inbox:metricMathAlarms'),
      );
    },
  );

  it('keeps the failure-rate alarm, with no annotation, when the context says true', () => {
    const { stack, consumer } = consumerTemplate(
      {},
      { context: { [CdkContext.MetricMathAlarms]: 'true' } },
    );

    expect(consumer.alarms.failureRate).toBeDefined();
    Annotations.fromStack(stack).hasNoInfo('/TestStack/Consumer', Match.anyValue());
  });

  it('refuses a context value other than true or false, naming the key', () => {
    expect(() =>
      consumerTemplate({}, { context: { [CdkContext.MetricMathAlarms]: 'no' } }),
    ).toThrow(
      expect.objectContaining({
        name: 'InboxValidationError',
        message: expect.stringMatching(
          /sqs-inbox:metricMathAlarms must be true or false \(given "no"\)/,
        ),
      }),
    );
  });

  it('alarms on function errors, on lease takeovers, on the failure rate and on a dead letter near the DLQ’s retention, notifying the topic', () => {
    const stack = freshStack();
    const topic = new Topic(stack, 'Alarms');
    const consumer = new InboxConsumer(stack, 'Consumer', {
      consumer: 'orders',
      function: { entry: fixtureEntry },
      monitoring: { alarmTopic: topic },
    });
    const template = Template.fromStack(stack);
    const actions = [{ Ref: stack.getLogicalId(topic.node.defaultChild as CfnTopic) }];

    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: refOf(stack, consumer.function) }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: actions,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'SqsInbox',
      MetricName: 'InboxLeaseTakeovers',
      Dimensions: [{ Name: 'service', Value: 'orders' }],
      Threshold: 0,
      TreatMissingData: 'notBreaching',
      AlarmActions: actions,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: Match.arrayWith([Match.objectLike({ Expression: Match.anyValue() })]),
      AlarmActions: actions,
    });
    // 14 days of DLQ retention less 4 of the source queue and a day: 9 days.
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: queueName(stack, consumer.deadLetterQueue) }],
      Threshold: 9 * 86_400,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: actions,
    });
    for (const alarm of Object.values(consumer.alarms)) {
      expect(alarm === undefined || alarm.node.defaultChild !== undefined).toBe(true);
    }
    expect(Object.keys(consumer.alarms).sort()).toEqual([
      'deadLetterAge',
      'deadLetters',
      'deliveryDeadLetters',
      'failureRate',
      'functionErrors',
      'leaseTakeovers',
      'queueAge',
    ]);
  });

  it('never alarms a dead letter younger than an hour, however short the DLQ’s retention', () => {
    const { template } = consumerTemplate({
      queue: { retentionPeriod: Duration.days(4) },
      deadLetter: { retentionPeriod: Duration.days(5) },
    });

    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateAgeOfOldestMessage',
      Threshold: 3_600,
    });
  });

  it('names in every alarm description the sqs-inbox command to run for this function', () => {
    const { stack, consumer, template } = consumerTemplate();
    const functionRef = refOf(stack, consumer.function);
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    const descriptions = alarms.map(({ Properties }) =>
      JSON.stringify(Properties.AlarmDescription),
    );

    expect(alarms).toHaveLength(6);
    for (const description of descriptions) {
      expect(description).toMatch(/npx sqs-inbox (dlq report|dlq redrive|message) --function /);
      expect(description).toContain(JSON.stringify(functionRef));
    }
  });

  it('extends the dashboard: DLQ age, function errors and duration p99, mapping counts, steps and leases, failures by error name, the commands', () => {
    const { stack, consumer, template } = consumerTemplate();
    const body = dashboardBody(template);

    for (const text of [
      'InboxProcessed',
      'InboxFailures',
      'ApproximateAgeOfOldestMessage',
      '\\"Errors\\"',
      '\\"Throttles\\"',
      '\\"Duration\\"',
      'p99',
      'PolledEventCount',
      'InvokedEventCount',
      'FailedInvokeEventCount',
      'DeletedEventCount',
      'EventSourceMappingUUID',
      'InboxStepsRun',
      'InboxLeasesLost',
      'InboxLeaseTakeovers',
      'stats count(*) as failures by error.name',
      'npx sqs-inbox dlq report --function ',
      'npx sqs-inbox dlq redrive --function ',
      'npx sqs-inbox message --function ',
    ]) {
      expect(body).toContain(text);
    }
    // The Logs Insights query reads the function's own log group.
    expect(body).toContain(stack.getLogicalId(consumer.logGroup?.node.defaultChild as CfnLogGroup));
  });
});

describe('OutboxRelay monitoring', () => {
  function relay(props: { metricsNamespace?: string } = {}) {
    const stack = freshStack();
    const topic = new Topic(stack, 'Alarms');
    const outbox = new OutboxRelay(stack, 'Outbox', {
      name: 'ledger',
      destinations: { credits: new SqsQueue(stack, 'Credits') },
      alarmTopic: topic,
      ...props,
    });
    return { stack, topic, outbox, template: Template.fromStack(stack) };
  }

  it('gives the relay the namespace and service its metrics go under', () => {
    const { template } = relay({ metricsNamespace: 'Shop' });

    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          POWERTOOLS_METRICS_NAMESPACE: 'Shop',
          POWERTOOLS_SERVICE_NAME: 'ledger',
        }),
      },
    });
  });

  it('graphs the relay’s counts under its namespace and service, summed per minute', () => {
    const body = dashboardBody(relay({ metricsNamespace: 'Shop' }).template);

    for (const metricName of [
      'OutboxMessagesRelayed',
      'OutboxDeadLettered',
      'OutboxRecordsFailed',
    ]) {
      expect(body).toContain(
        `[\\"Shop\\",\\"${metricName}\\",\\"service\\",\\"ledger\\",{\\"period\\":60,\\"stat\\":\\"Sum\\"}]`,
      );
    }
  });

  it('puts an outbox of a consumer under the consumer’s namespace', () => {
    const stack = freshStack();
    new InboxConsumer(stack, 'Consumer', {
      consumer: 'orders',
      function: { entry: fixtureEntry },
      monitoring: { metricsNamespace: 'Shop' },
      outbox: { destinations: { credits: new SqsQueue(stack, 'Credits') } },
    });
    const template = Template.fromStack(stack);

    template.resourcePropertiesCountIs(
      'AWS::Lambda::Function',
      {
        Environment: {
          Variables: Match.objectLike({ POWERTOOLS_METRICS_NAMESPACE: 'Shop' }),
        },
      },
      2,
    );
  });

  it('alarms on the relay’s errors, notifying the topic, its description naming the outbox report command', () => {
    const { stack, topic, outbox, template } = relay();

    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: refOf(stack, outbox.function) }],
      Threshold: 0,
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: stack.getLogicalId(topic.node.defaultChild as CfnTopic) }],
      AlarmDescription: Match.objectLike({
        'Fn::Join': [
          '',
          Match.arrayWith([Match.stringLikeRegexp('npx sqs-inbox outbox report --queue-url ')]),
        ],
      }),
    });
    expect(outbox.alarms.functionErrors).toBeDefined();
  });

  it('has a dashboard of its own: its counts, errors, duration, iterator age, DLQ depth and the report command', () => {
    const { template } = relay();
    const body = dashboardBody(template);

    for (const text of [
      'OutboxMessagesRelayed',
      'OutboxDeadLettered',
      'OutboxRecordsFailed',
      '\\"Errors\\"',
      'IteratorAge',
      'p99',
      'ApproximateNumberOfMessagesVisible',
      'npx sqs-inbox outbox report --queue-url ',
    ]) {
      expect(body).toContain(text);
    }
  });
});
