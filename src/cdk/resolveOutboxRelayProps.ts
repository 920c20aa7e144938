import { Duration } from 'aws-cdk-lib';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { RuntimeFamily } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';
import {
  BUSINESS_TABLE_NAME_PATTERN,
  DEFAULT_OUTBOX_RETENTION_SECONDS,
  OUTBOX_RETENTION_RANGE,
} from '../constants/values.js';
import { InboxValidationError } from './InboxValidationError.js';
import { inRange } from './inRange.js';
import type { OutboxDestination, OutboxRelayProps } from './OutboxRelayProps.js';
import { resolveMaxRecordAge } from './resolveMaxRecordAge.js';

/**
 * The relay's settings with their defaults, validated (skipping unresolved tokens).
 *
 * @example
 * ```ts
 * const settings: OutboxRelaySettings = resolveOutboxRelayProps(props);
 * ```
 */
export interface OutboxRelaySettings {
  readonly retention: Duration;
  readonly batchSize: number;
  readonly retryAttempts: number;
  readonly maxRecordAge: Duration;
  readonly parallelizationFactor: number;
  readonly iteratorAgeAlarmThreshold: Duration;
  readonly metricsNamespace: string;
}

const RELAY_PROPS: readonly string[] = [
  'name',
  'destinations',
  'retention',
  'batchSize',
  'retryAttempts',
  'maxRecordAge',
  'parallelizationFactor',
  'iteratorAgeAlarmThreshold',
  'removalPolicy',
  'alarmTopic',
  'metricsNamespace',
  'runtime',
  'architecture',
  'bundling',
  'relayEntry',
] satisfies readonly (keyof OutboxRelayProps)[];

/**
 * Applies the defaults to {@link OutboxRelayProps} and refuses values out of range, naming the
 * prop, the range and the value given.
 *
 * @example
 * ```ts
 * resolveOutboxRelayProps({ name: 'ledger', destinations: {}, batchSize: 0 }); // throws
 * ```
 */
export function resolveOutboxRelayProps(
  scope: IConstruct,
  props: OutboxRelayProps,
): OutboxRelaySettings {
  const unknown = Object.keys(props).find((name) => !RELAY_PROPS.includes(name));
  if (unknown !== undefined) {
    throw new InboxValidationError(
      scope,
      `${unknown} is not a prop of the outbox relay; the known ones are ${RELAY_PROPS.join(', ')}.`,
    );
  }
  checkDestinations(scope, props.destinations);
  checkRelayCode(scope, props);
  const retention = props.retention ?? Duration.seconds(DEFAULT_OUTBOX_RETENTION_SECONDS);
  inRange(
    scope,
    'retention (seconds)',
    retention.toSeconds(),
    OUTBOX_RETENTION_RANGE.min,
    OUTBOX_RETENTION_RANGE.max,
  );
  const settings: OutboxRelaySettings = {
    retention,
    batchSize: props.batchSize ?? 100,
    retryAttempts: props.retryAttempts ?? 10,
    maxRecordAge: resolveMaxRecordAge(scope, props.maxRecordAge),
    parallelizationFactor: props.parallelizationFactor ?? 1,
    iteratorAgeAlarmThreshold: props.iteratorAgeAlarmThreshold ?? Duration.minutes(5),
    metricsNamespace: props.metricsNamespace ?? 'SqsInbox',
  };
  inRange(scope, 'batchSize', settings.batchSize, 1, 10_000);
  inRange(scope, 'retryAttempts', settings.retryAttempts, 0, 10_000);
  inRange(scope, 'parallelizationFactor', settings.parallelizationFactor, 1, 10);
  return settings;
}

/** A Node.js runtime (the relay is JavaScript), and esbuild settings only for an entry to bundle. */
function checkRelayCode(scope: IConstruct, props: OutboxRelayProps): void {
  if (props.runtime !== undefined && props.runtime.family !== RuntimeFamily.NODEJS) {
    throw new InboxValidationError(
      scope,
      `runtime must be a Node.js runtime, the relay being JavaScript (given ${props.runtime.name}).`,
    );
  }
  if (props.bundling !== undefined && props.relayEntry === undefined) {
    throw new InboxValidationError(
      scope,
      'bundling applies to a relayEntry of your own; the library’s relay ships pre-built and is ' +
        'not bundled at synth. Give a relayEntry, or leave bundling out.',
    );
  }
}

/** At least one destination, each named as an environment variable can be, each one we can send to. */
function checkDestinations(
  scope: IConstruct,
  destinations: OutboxRelayProps['destinations'] | undefined,
): void {
  const names = Object.keys(destinations ?? {});
  if (names.length === 0)
    throw new InboxValidationError(
      scope,
      'destinations must name at least one queue, topic or event bus.',
    );
  const badName = names.find((name) => !BUSINESS_TABLE_NAME_PATTERN.test(name));
  if (badName !== undefined) {
    throw new InboxValidationError(
      scope,
      `destination name "${badName}" must be a letter then up to 63 letters, digits or _ (it becomes an environment variable name).`,
    );
  }
  for (const [name, target] of Object.entries(destinations ?? {}))
    destinationAddress(target, scope, `destination ${name}`);
}

/**
 * The address `tx.publish` names a destination by: a queue's URL, a topic's or a bus's ARN.
 *
 * @example
 * ```ts
 * destinationAddress(creditsQueue); // the queue URL (a token until deploy)
 * ```
 */
export function destinationAddress(
  target: OutboxDestination,
  scope?: IConstruct,
  what = 'outbox destination',
): string {
  if ('queueUrl' in target) return target.queueUrl;
  if ('topicArn' in target) return target.topicArn;
  if ('eventBusArn' in target) return target.eventBusArn;
  throw new InboxValidationError(
    scope,
    `${what} must be an SQS queue, an SNS topic or an EventBridge event bus.`,
  );
}

/**
 * Grants exactly the send to one destination (with its KMS key's use, if encrypted):
 * `sqs:SendMessage`, `sns:Publish` or `events:PutEvents` on that resource only.
 *
 * @example
 * ```ts
 * grantSend(creditsQueue, relayFunction);
 * ```
 */
export function grantSend(target: OutboxDestination, grantee: IGrantable): void {
  if ('queueUrl' in target) (target as IQueue).grantSendMessages(grantee);
  else if ('topicArn' in target) (target as ITopic).grantPublish(grantee);
  else (target as IEventBus).grantPutEventsTo(grantee);
}
