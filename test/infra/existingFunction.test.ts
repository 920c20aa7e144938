import { Duration, Errors } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Stack } from 'aws-cdk-lib/core';
import { describe, expect, it } from 'vitest';
import { InboxConsumer, InboxValidationError } from '../../src/cdk/index.js';
import { InboxError } from '../../src/errors.js';
import { fixtureEntry, freshStack } from './stackFactory.js';

/** A function of the user's own, made before the consumer, as an app would. */
function usersFunction(
  stack: Stack,
  runtime = Runtime.NODEJS_22_X,
  timeout = Duration.seconds(45),
) {
  return new LambdaFunction(stack, 'Mine', {
    runtime,
    handler: 'index.handler',
    code: Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] });'),
    timeout,
  });
}

describe('InboxConsumer with an existing function', () => {
  it('gives the function the environment contract, the grants and the event source mapping, and creates no function of its own', () => {
    const stack = freshStack();
    const mine = usersFunction(stack);
    const consumer = new InboxConsumer(stack, 'Consumer', {
      consumer: 'orders',
      existingFunction: mine,
    });
    const template = Template.fromStack(stack);

    expect(consumer.function).toBe(mine);
    template.resourceCountIs('AWS::Lambda::Function', 1);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x',
      Environment: {
        Variables: Match.objectLike({
          INBOX_CONSUMER: 'orders',
          INBOX_SOURCES: 'sqs',
          INBOX_MAX_RECEIVE_COUNT: '5',
          POWERTOOLS_SERVICE_NAME: 'orders',
          INBOX_TABLE_NAME: Match.anyValue(),
          INBOX_DEAD_LETTER_QUEUE_URL: Match.anyValue(),
        }),
      },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: stack.resolve(mine.functionName),
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [stack.resolve(mine.role?.roleName)],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: Match.arrayWith(['dynamodb:UpdateItem']),
            Condition: {
              'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['orders#*'] },
            },
          }),
        ]),
      },
    });
  });

  it('sizes the queue’s visibility timeout from the function’s own timeout (6 × 45 s)', () => {
    const stack = freshStack();
    new InboxConsumer(stack, 'Consumer', {
      consumer: 'orders',
      existingFunction: usersFunction(stack),
    });

    Template.fromStack(stack).hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 270,
      RedrivePolicy: Match.anyValue(),
    });
  });

  it('refuses a function whose runtime the library cannot run on, naming the runtime and the fix', () => {
    const stack = freshStack();
    const python = usersFunction(stack, Runtime.PYTHON_3_12);
    const node18 = new NodejsFunction(stack, 'Old', {
      entry: fixtureEntry,
      runtime: Runtime.NODEJS_18_X,
    });

    for (const existingFunction of [python, node18]) {
      expect(
        () =>
          new InboxConsumer(stack, `Consumer${existingFunction.node.id}`, {
            consumer: 'orders',
            existingFunction,
          }),
      ).toThrow(
        /existingFunction runs (python3\.12|nodejs18\.x); the library needs Node\.js 20 or later/,
      );
    }
  });

  it('refuses a function already serving another consumer, naming it, and leaves the function’s log group alone', () => {
    const stack = freshStack();
    const mine = usersFunction(stack);
    const first = new InboxConsumer(stack, 'Orders', {
      consumer: 'orders',
      existingFunction: mine,
    });

    expect(first.logGroup).toBeUndefined();
    Template.fromStack(stack).resourceCountIs('Custom::LogRetention', 0);
    expect(
      () => new InboxConsumer(stack, 'Billing', { consumer: 'billing', existingFunction: mine }),
    ).toThrow(/^TestStack\/Billing: existingFunction is already the function of TestStack\/Orders/);
  });

  it('refuses a prop the outbox relay does not know, naming the ones it has', () => {
    const stack = freshStack();

    expect(
      () =>
        new InboxConsumer(stack, 'Consumer', {
          consumer: 'orders',
          function: { entry: fixtureEntry },
          outbox: { destinations: {}, retentionn: Duration.days(3) } as never,
        }),
    ).toThrow(
      /retentionn is not a prop of the outbox relay; the known ones are name, destinations/,
    );
  });

  it('refuses neither function nor existingFunction, naming both', () => {
    const stack = freshStack();

    expect(() => new InboxConsumer(stack, 'Consumer', { consumer: 'orders' })).toThrow(
      /^TestStack\/Consumer: give function: \{ entry \} .* or existingFunction/,
    );
  });
});

describe('InboxValidationError', () => {
  it('is what aws-cdk-lib calls a validation error, an InboxError, names the construct and starts its stack at the caller', () => {
    const stack = freshStack();
    let caught: unknown;
    try {
      new InboxConsumer(stack, 'Consumer', {
        consumer: 'orders#eu',
        function: { entry: fixtureEntry },
      });
    } catch (error) {
      caught = error;
    }

    expect(caught).toBeInstanceOf(InboxValidationError);
    expect(caught).toBeInstanceOf(InboxError);
    expect(Errors.isValidationError(caught)).toBe(true);
    const error = caught as InboxValidationError;
    expect(error.name).toBe('InboxValidationError');
    expect(error.constructPath).toBe('TestStack/Consumer');
    expect(error.message).toMatch(/^TestStack\/Consumer: consumer must be/);
    const frames = (error.stack ?? '').split('\n').filter((line) => line.includes(' at '));
    expect(frames[0]).toContain('existingFunction.test.ts');
    expect(frames.some((line) => /src\/cdk\//.test(line))).toBe(false);
  });
});
