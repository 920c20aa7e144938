import { Duration, type Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { OutboxPipe, type OutboxPipeProps } from '../../src/cdk/index.js';
import { inboxConfigFromEnvironment } from '../../src/index.js';
import {
  expectNagCleanAndAbleToFail,
  freshStack,
  type PolicyStatementJson,
} from './stackFactory.js';

/** An outbox pipe toward a queue (FIFO unless said otherwise), not synthesized yet. */
function buildPipe(options: { fifo?: boolean } & Partial<OutboxPipeProps> = {}) {
  const { fifo = true, ...props } = options;
  const stack = freshStack();
  const destination = new Queue(stack, 'Credits', {
    fifo,
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    deadLetterQueue: {
      queue: new Queue(stack, 'CreditsDlq', {
        fifo,
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
      }),
      maxReceiveCount: 5,
    },
  });
  const outbox = new OutboxPipe(stack, 'Outbox', { name: 'ledger', destination, ...props });
  return { stack, destination, outbox };
}

function pipeOf(options: Parameters<typeof buildPipe>[0] = {}) {
  const built = buildPipe(options);
  return { ...built, template: Template.fromStack(built.stack) };
}

const idOf = (stack: Stack, construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as never);

function pipeRoleStatements(setup: ReturnType<typeof pipeOf>): PolicyStatementJson[] {
  const role = setup.stack.getLogicalId(setup.outbox.role.node.defaultChild as never);
  return Object.values(setup.template.findResources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(role))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as PolicyStatementJson[]);
}

describe('OutboxPipe', () => {
  it('relays the outbox stream to the queue from the start: new and changed items only, bisecting, 10 retries, 6 hours, its dead-letter queue', () => {
    const setup = pipeOf();

    setup.template.hasResourceProperties('AWS::Pipes::Pipe', {
      Source: { 'Fn::GetAtt': [idOf(setup.stack, setup.outbox.table), 'StreamArn'] },
      Target: { 'Fn::GetAtt': [idOf(setup.stack, setup.destination), 'Arn'] },
      SourceParameters: {
        DynamoDBStreamParameters: {
          StartingPosition: 'TRIM_HORIZON',
          BatchSize: 10,
          MaximumRetryAttempts: 10,
          MaximumRecordAgeInSeconds: 21_600,
          OnPartialBatchItemFailure: 'AUTOMATIC_BISECT',
          DeadLetterConfig: {
            Arn: { 'Fn::GetAtt': [idOf(setup.stack, setup.outbox.deadLetterQueue), 'Arn'] },
          },
        },
        FilterCriteria: {
          Filters: [{ Pattern: JSON.stringify({ eventName: ['INSERT', 'MODIFY'] }) }],
        },
      },
    });
    setup.template.hasResourceProperties('AWS::DynamoDB::Table', {
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  it("sends each item's stream record itself, without an input template; on FIFO with the message's group and its outbox id as deduplication id", () => {
    const { template } = pipeOf();

    template.hasResourceProperties('AWS::Pipes::Pipe', {
      TargetParameters: {
        InputTemplate: Match.absent(),
        SqsQueueParameters: {
          MessageGroupId: '$.dynamodb.NewImage.messages.L[0].M.groupId.S',
          MessageDeduplicationId: '$.dynamodb.NewImage.messages.L[0].M.id.S',
        },
      },
    });
  });

  it('sets no target parameters at all on a standard queue: no template, no group or deduplication id', () => {
    const { template } = pipeOf({ fifo: false });

    template.hasResourceProperties('AWS::Pipes::Pipe', { TargetParameters: Match.absent() });
  });

  it('gives the pipe a role for the pipes service that reads only the outbox stream and sends only to the queue and its dead-letter queue', () => {
    const setup = pipeOf();
    const streamArn = { 'Fn::GetAtt': [idOf(setup.stack, setup.outbox.table), 'StreamArn'] };
    const arnOf = (queue: Queue) => ({ 'Fn::GetAtt': [idOf(setup.stack, queue), 'Arn'] });

    setup.template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [Match.objectLike({ Principal: { Service: 'pipes.amazonaws.com' } })],
      },
    });
    const statements = pipeRoleStatements(setup);
    expect(statements).toContainEqual(
      expect.objectContaining({
        Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        Resource: streamArn,
      }),
    );
    const sends = statements.filter((s) => JSON.stringify(s.Action).includes('sqs:SendMessage'));
    expect(sends.map((s) => s.Resource)).toEqual(
      expect.arrayContaining([arnOf(setup.destination), arnOf(setup.outbox.deadLetterQueue)]),
    );
    const wildcards = statements.filter((s) => JSON.stringify(s.Resource) === '"*"');
    expect(wildcards.map((s) => s.Action)).toEqual(['dynamodb:ListStreams']);
  });

  it("lets the role use an imported queue's customer-managed key when given it, and no key otherwise", () => {
    const stack = freshStack();
    const key = new Key(stack, 'CreditsKey', { enableKeyRotation: true });
    const destination = Queue.fromQueueArn(
      stack,
      'Imported',
      'arn:aws:sqs:eu-west-1:123456789012:credits',
    );
    const outbox = new OutboxPipe(stack, 'Outbox', {
      name: 'ledger',
      destination,
      destinationKey: key,
    });
    const setup = { stack, outbox, template: Template.fromStack(stack) };

    const kms = pipeRoleStatements(setup as never).filter((s) =>
      JSON.stringify(s.Action).includes('kms:'),
    );
    expect(kms).toEqual([
      expect.objectContaining({
        Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
        Resource: { 'Fn::GetAtt': [stack.getLogicalId(key.node.defaultChild as never), 'Arn'] },
      }),
    ]);
    const plain = pipeRoleStatements(pipeOf());
    expect(plain.filter((s) => JSON.stringify(s.Action).includes('kms:'))).toEqual([]);
  });

  it("alarms on anything in its dead-letter queue and on the pipe's failing executions", () => {
    const setup = pipeOf();

    setup.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        {
          Name: 'QueueName',
          Value: {
            'Fn::GetAtt': [idOf(setup.stack, setup.outbox.deadLetterQueue), 'QueueName'],
          },
        },
      ],
    });
    setup.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/EventBridge/Pipes',
      MetricName: 'ExecutionFailed',
      Dimensions: [
        { Name: 'PipeName', Value: { Ref: setup.stack.getLogicalId(setup.outbox.pipe) } },
      ],
      EvaluationPeriods: 3,
    });
  });

  it('gives publishers the variables that make their store refuse what the pipe cannot send, and grants only PutItem and UpdateItem on the table', () => {
    const setup = buildPipe();
    const publisher = new Role(setup.stack, 'Publisher', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    });
    setup.outbox.grantPublish(publisher);
    const template = Template.fromStack(setup.stack);
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: setup.stack.getLogicalId(publisher.node.defaultChild as never) }],
      PolicyDocument: {
        Statement: [
          {
            Action: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
            Effect: 'Allow',
            Resource: Match.arrayWith([
              { 'Fn::GetAtt': [idOf(setup.stack, setup.outbox.table), 'Arn'] },
            ]),
          },
        ],
      },
    });
    const env = setup.stack.resolve(setup.outbox.publisherEnvironment()) as Record<string, unknown>;

    expect(Object.keys(env).sort()).toEqual([
      'INBOX_OUTBOX_PIPE_DESTINATION',
      'INBOX_OUTBOX_RETENTION_SECONDS',
      'INBOX_OUTBOX_TABLE_NAME',
    ]);
    expect(env.INBOX_OUTBOX_RETENTION_SECONDS).toBe('604800');
    const store = inboxConfigFromEnvironment({
      env: {
        INBOX_TABLE_NAME: 'inbox',
        INBOX_CONSUMER: 'ledger',
        INBOX_TTL_SECONDS: '86400',
        INBOX_DEAD_LETTER_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/dlq',
        INBOX_MAX_RECEIVE_COUNT: '5',
        INBOX_OUTBOX_TABLE_NAME: 'outbox',
        INBOX_OUTBOX_RETENTION_SECONDS: String(env.INBOX_OUTBOX_RETENTION_SECONDS),
        INBOX_OUTBOX_PIPE_DESTINATION: 'https://sqs.eu-west-1.amazonaws.com/123456789012/c.fifo',
      },
    }).options.store;
    expect(store.outbox?.pipeDestination).toMatch(/c\.fifo$/);
  });

  it.each([
    [{ batchSize: 11 }, /batchSize must be an integer from 1 to 10 inclusive \(given 11\)/],
    [{ retention: Duration.hours(1) }, /retention \(seconds\) must be an integer from 172800/],
    [{ maxRecordAge: Duration.seconds(30) }, /maxRecordAge \(seconds\) must be an integer from 60/],
  ])('refuses %j, naming the prop, the range and the value', (props, message) => {
    expect(() => buildPipe(props)).toThrow(message);
  });

  it('gives no warning at synth: what reaches the queue rests on documented Pipes behaviour only', () => {
    const { stack } = buildPipe();

    Annotations.fromStack(stack).hasNoWarning('/TestStack/Outbox', Match.anyValue());
  });

  it("passes cdk-nag's AwsSolutions checks, which do fail on a finding", () => {
    expectNagCleanAndAbleToFail(() => buildPipe());
  });
});
