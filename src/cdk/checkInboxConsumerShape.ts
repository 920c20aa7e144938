import { RuntimeFamily } from 'aws-cdk-lib/aws-lambda';
import {
  BUSINESS_TABLE_NAME_PATTERN,
  CONSUMER_NAME_PATTERN,
  CONSUMER_NAME_RULE,
  INBOX_ENVIRONMENT_PREFIX,
} from '../constants/values.js';
import type { InboxConsumerProps } from './InboxConsumerProps.js';

const PROPS = [
  'consumer',
  'key',
  'ttl',
  'sources',
  'function',
  'existingFunction',
  'businessTables',
  'inboxTable',
  'removalPolicy',
  'outbox',
  'queue',
  'deadLetter',
  'eventSource',
  'monitoring',
  'retry',
];
const GROUPS: Readonly<Record<string, readonly string[]>> = {
  function: [
    'entry',
    'handler',
    'timeout',
    'memorySize',
    'runtime',
    'architecture',
    'bundling',
    'environment',
  ],
  queue: ['fifo', 'contentBasedDeduplication', 'retentionPeriod', 'visibilityTimeout'],
  deadLetter: ['maxReceiveCount', 'retentionPeriod'],
  eventSource: ['batchSize', 'maxBatchingWindow', 'maxConcurrency'],
  monitoring: ['alarmTopic', 'queueAgeAlarmThreshold', 'metricsNamespace'],
  retry: ['backoff', 'leaseHeldMargin'],
};
/** The props of 0.1.0, by where each went. */
const MOVED: Readonly<Record<string, string>> = {
  consumerName: 'consumer',
  messageKey: 'key',
  inboxTtl: 'ttl',
  inboxTableRemovalPolicy: 'removalPolicy',
  entry: 'function.entry',
  handler: 'function.handler',
  functionTimeout: 'function.timeout',
  memorySize: 'function.memorySize',
  runtime: 'function.runtime',
  architecture: 'function.architecture',
  bundling: 'function.bundling',
  environment: 'function.environment',
  fifo: 'queue.fifo',
  contentBasedDeduplication: 'queue.contentBasedDeduplication',
  retentionPeriod: 'queue.retentionPeriod',
  visibilityTimeout: 'queue.visibilityTimeout',
  maxReceiveCount: 'deadLetter.maxReceiveCount',
  deadLetterRetentionPeriod: 'deadLetter.retentionPeriod',
  batchSize: 'eventSource.batchSize',
  maxBatchingWindow: 'eventSource.maxBatchingWindow',
  maxConcurrency: 'eventSource.maxConcurrency',
  alarmTopic: 'monitoring.alarmTopic',
  queueAgeAlarmThreshold: 'monitoring.queueAgeAlarmThreshold',
  metricsNamespace: 'monitoring.metricsNamespace',
};
// Variables the construct sets on the function besides `INBOX_*`.
const RESERVED_ENVIRONMENT: readonly string[] = [
  'POWERTOOLS_SERVICE_NAME',
  'POWERTOOLS_METRICS_NAMESPACE',
  'NODE_OPTIONS',
];
const OLDEST_NODE_MAJOR = 20;

/**
 * Refuses props the construct does not know (naming where a prop of 0.1.0 went), a bad
 * consumer name or business table name, and a function given twice or not at all.
 *
 * @example
 * ```ts
 * checkInboxConsumerShape(props, (message) => { throw new InboxValidationError(scope, message); });
 * ```
 */
export function checkInboxConsumerShape(
  props: InboxConsumerProps,
  fail: (message: string) => never,
): void {
  checkKeys(props, PROPS, '', fail);
  checkGroups(props, fail);
  if (typeof props.consumer !== 'string' || !CONSUMER_NAME_PATTERN.test(props.consumer)) {
    fail(`consumer must be ${CONSUMER_NAME_RULE} (given ${JSON.stringify(props.consumer)}).`);
  }
  for (const name of Object.keys(props.businessTables ?? {})) {
    if (!BUSINESS_TABLE_NAME_PATTERN.test(name)) {
      fail(
        `businessTables key ${JSON.stringify(name)} must match ${BUSINESS_TABLE_NAME_PATTERN.source}: ` +
          'it becomes part of an environment variable name.',
      );
    }
  }
  checkFunctionChoice(props, fail);
}

function checkGroups(props: InboxConsumerProps, fail: (message: string) => never): void {
  for (const [group, keys] of Object.entries(GROUPS)) {
    const value = (props as unknown as Record<string, unknown>)[group];
    // `retry: false` turns the group off.
    if (value !== undefined && !(group === 'retry' && value === false)) {
      checkKeys(value, keys, `${group}.`, fail);
    }
  }
  if (props.retry && props.retry.backoff !== undefined) {
    checkKeys(props.retry.backoff, ['firstDelay', 'maxDelay'], 'retry.backoff.', fail);
  }
}

function checkFunctionChoice(props: InboxConsumerProps, fail: (message: string) => never): void {
  if ((props.function === undefined) === (props.existingFunction === undefined)) {
    fail(
      props.function === undefined
        ? 'give function: { entry } (the construct creates and bundles it) or existingFunction (a lambda.Function of yours).'
        : 'give function or existingFunction, not both.',
    );
  }
  const runtime = props.existingFunction?.runtime;
  const major = Number(/^nodejs(\d+)/.exec(runtime?.name ?? '')?.[1]);
  if (runtime && (runtime.family !== RuntimeFamily.NODEJS || !(major >= OLDEST_NODE_MAJOR))) {
    fail(
      `existingFunction runs ${runtime.name}; the library needs Node.js ${OLDEST_NODE_MAJOR} or later (Runtime.NODEJS_24_X, say).`,
    );
  }
  const overridden = Object.keys(props.function?.environment ?? {}).filter(
    (name) => name.startsWith(INBOX_ENVIRONMENT_PREFIX) || RESERVED_ENVIRONMENT.includes(name),
  );
  if (overridden.length > 0) {
    fail(
      `function.environment may not set ${overridden.join(', ')}; the construct sets them from its props.`,
    );
  }
}

function checkKeys(
  value: unknown,
  known: readonly string[],
  path: string,
  fail: (message: string) => never,
): void {
  if (typeof value !== 'object' || value === null) {
    fail(`${path ? path.slice(0, -1) : 'props'} must be an object (given ${typeof value}).`);
  }
  for (const name of Object.keys(value as object)) {
    if (known.includes(name)) continue;
    const movedTo = path === '' && Object.hasOwn(MOVED, name) ? MOVED[name] : undefined;
    fail(
      movedTo
        ? `${name} is now ${movedTo} (CHANGELOG.md lists every renamed prop).`
        : `${path}${name} is not a prop; the known ones are ${known.join(', ')}.`,
    );
  }
}
