import { CfnParameter, Duration, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { OutboxPipe, OutboxRelay } from '../../src/cdk/index.js';
import { fixtureEntry, freshStack } from './stackFactory.js';

type MaxRecordAge = (stack: Stack) => Duration | undefined;

/** The record age each construct passes to AWS, read back from its synthesized template. */
const RELAYS = [
  {
    construct: 'OutboxRelay',
    build(maxRecordAge: MaxRecordAge) {
      const stack = freshStack();
      const credits = new Queue(stack, 'Credits', { encryption: QueueEncryption.SQS_MANAGED });
      new OutboxRelay(stack, 'Outbox', {
        name: 'ledger',
        destinations: { credits },
        relayEntry: fixtureEntry,
        maxRecordAge: maxRecordAge(stack),
      });
      const [mapping] = Object.values(
        Template.fromStack(stack).findResources('AWS::Lambda::EventSourceMapping'),
      );
      return mapping?.Properties.MaximumRecordAgeInSeconds as unknown;
    },
  },
  {
    construct: 'OutboxPipe',
    build(maxRecordAge: MaxRecordAge) {
      const stack = freshStack();
      const destination = new Queue(stack, 'Credits', { encryption: QueueEncryption.SQS_MANAGED });
      new OutboxPipe(stack, 'Outbox', {
        name: 'ledger',
        destination,
        maxRecordAge: maxRecordAge(stack),
      });
      const [pipe] = Object.values(Template.fromStack(stack).findResources('AWS::Pipes::Pipe'));
      return pipe?.Properties.SourceParameters.DynamoDBStreamParameters
        .MaximumRecordAgeInSeconds as unknown;
    },
  },
] as const;

describe('a given-up batch leaves at least 12 of the stream’s 24 hours to read it back and redrive it', () => {
  it.each(RELAYS)(
    '$construct takes a maxRecordAge of 12 hours and refuses one second more, naming the construct, the prop, the range and the value',
    ({ build }) => {
      expect(build(() => Duration.hours(12))).toBe(43_200);
      expect(() => build(() => Duration.seconds(43_201))).toThrow(
        /^TestStack\/Outbox: maxRecordAge \(seconds\) must be an integer from 60 to 43200 inclusive \(given 43201\): a batch given up at that age must leave time, within the stream's 24 hours, to read it back and redrive it/,
      );
    },
  );

  it.each(RELAYS)(
    '$construct refuses what AWS accepts past the stream’s retention: 7 days',
    ({ build }) => {
      expect(() => build(() => Duration.days(7))).toThrow(
        /from 60 to 43200 inclusive \(given 604800\)/,
      );
    },
  );

  it.each(RELAYS)(
    '$construct takes AWS’s floor of 1 minute and refuses 59 seconds',
    ({ build }) => {
      expect(build(() => Duration.minutes(1))).toBe(60);
      expect(() => build(() => Duration.seconds(59))).toThrow(
        /maxRecordAge \(seconds\) must be an integer from 60 to 43200 inclusive \(given 59\)/,
      );
    },
  );

  it.each(RELAYS)(
    '$construct refuses a token, whose deploy-time value (7 days, infinite) it could not check',
    ({ build }) => {
      const fromParameter = (stack: Stack) =>
        Duration.seconds(new CfnParameter(stack, 'MaxRecordAge', { type: 'Number' }).valueAsNumber);

      expect(() => build(fromParameter)).toThrow(
        /^TestStack\/Outbox: maxRecordAge must be a literal duration from 60 to 43200 seconds, not a token/,
      );
    },
  );

  it.each(RELAYS)(
    '$construct passes 6 hours by default, never AWS’s infinite (-1)',
    ({ build }) => {
      expect(build(() => undefined)).toBe(21_600);
    },
  );
});
