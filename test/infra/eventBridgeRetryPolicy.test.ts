import { Duration } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Rule } from 'aws-cdk-lib/aws-events';
import { describe, expect, it } from 'vitest';
import { type EventBridgeSourceOptions, InboxConsumer, QueueSource } from '../../src/cdk/index.js';
import { fixtureEntry, freshStack } from './stackFactory.js';

type Declare = (
  stack: ReturnType<typeof freshStack>,
  options: EventBridgeSourceOptions,
) => QueueSource;

/** Both ways to declare an EventBridge source: a new pattern, or an existing rule. */
const DECLARATIONS: ReadonlyArray<{ readonly how: string; readonly declare: Declare }> = [
  {
    how: 'QueueSource.eventPattern',
    declare: (_stack, options) => QueueSource.eventPattern({ source: ['shop.orders'] }, options),
  },
  {
    how: 'QueueSource.eventBridgeRule',
    declare: (stack, options) =>
      QueueSource.eventBridgeRule(
        new Rule(stack, 'Orders', { eventPattern: { source: ['shop.orders'] } }),
        options,
      ),
  },
];

/** The retry policy the rule's target gets, from the synthesized template. */
function retryPolicyOf(declare: Declare, options: EventBridgeSourceOptions): unknown {
  const stack = freshStack();
  new InboxConsumer(stack, 'Consumer', {
    sources: [declare(stack, options)],
    consumer: 'stock',
    function: { entry: fixtureEntry },
  });
  const [rule] = Object.values(Template.fromStack(stack).findResources('AWS::Events::Rule'));
  return rule?.Properties.Targets[0].RetryPolicy;
}

describe("an EventBridge source's retry policy stays within EventBridge's (0–185 attempts, 60 s–24 h), refused at synth rather than at deploy", () => {
  it.each(DECLARATIONS)(
    '$how takes 185 attempts and refuses 186, naming the consumer, the option, the range and the value',
    ({ declare }) => {
      expect(retryPolicyOf(declare, { retryAttempts: 185 })).toEqual({ MaximumRetryAttempts: 185 });
      expect(() => retryPolicyOf(declare, { retryAttempts: 186 })).toThrow(
        /^TestStack\/Consumer: retryAttempts of an EventBridge source must be an integer from 0 to 185 inclusive \(given 186\)\.$/,
      );
    },
  );

  it.each(DECLARATIONS)(
    '$how takes 0 attempts and refuses -1 (which CDK would drop silently)',
    ({ declare }) => {
      expect(retryPolicyOf(declare, { retryAttempts: 0 })).toEqual({ MaximumRetryAttempts: 0 });
      expect(() => retryPolicyOf(declare, { retryAttempts: -1 })).toThrow(
        /retryAttempts of an EventBridge source must be an integer from 0 to 185 inclusive \(given -1\)/,
      );
    },
  );

  it.each(DECLARATIONS)(
    '$how takes a maxEventAge of 24 hours and refuses one second more',
    ({ declare }) => {
      expect(retryPolicyOf(declare, { maxEventAge: Duration.hours(24) })).toEqual({
        MaximumEventAgeInSeconds: 86_400,
      });
      expect(() => retryPolicyOf(declare, { maxEventAge: Duration.seconds(86_401) })).toThrow(
        /^TestStack\/Consumer: maxEventAge of an EventBridge source \(seconds\) must be an integer from 60 to 86400 inclusive \(given 86401\)\.$/,
      );
    },
  );

  it.each(DECLARATIONS)('$how takes a maxEventAge of 60 seconds and refuses 59', ({ declare }) => {
    expect(retryPolicyOf(declare, { maxEventAge: Duration.seconds(60) })).toEqual({
      MaximumEventAgeInSeconds: 60,
    });
    expect(() => retryPolicyOf(declare, { maxEventAge: Duration.seconds(59) })).toThrow(
      /maxEventAge of an EventBridge source \(seconds\) must be an integer from 60 to 86400 inclusive \(given 59\)/,
    );
  });
});
