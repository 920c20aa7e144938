import { Duration, RemovalPolicy, Token } from 'aws-cdk-lib';
import {
  BUSINESS_TABLE_NAME_PATTERN,
  CONSUMER_NAME_PATTERN,
  CONSUMER_NAME_RULE,
  DEFAULT_TTL_SECONDS,
  TTL_SECONDS_RANGE,
} from '../constants/values.js';
import type { InboxConsumerProps } from './InboxConsumerProps.js';

/**
 * The props with defaults applied, after validation.
 *
 * @example
 * ```ts
 * const { visibilityTimeout }: InboxConsumerSettings = resolveInboxConsumerProps(props);
 * ```
 */
export interface InboxConsumerSettings {
  readonly consumerName: string;
  readonly fifo: boolean;
  readonly contentBasedDeduplication: boolean;
  readonly maxReceiveCount: number;
  readonly retentionPeriod: Duration;
  readonly deadLetterRetentionPeriod: Duration;
  readonly functionTimeout: Duration;
  readonly visibilityTimeout: Duration;
  readonly memorySize: number;
  readonly inboxTtl: Duration;
  readonly inboxTableRemovalPolicy: RemovalPolicy;
  readonly batchSize: number;
  readonly maxBatchingWindow: Duration | undefined;
  readonly maxConcurrency: number | undefined;
  readonly queueAgeAlarmThreshold: Duration;
  readonly metricsNamespace: string;
}

const MAX_RETENTION = Duration.days(14);

/**
 * Applies defaults and checks the rules AWS would otherwise enforce at deploy time (or never),
 * with messages that name the value and the fix. Unresolved tokens are skipped.
 *
 * @example
 * ```ts
 * const settings = resolveInboxConsumerProps({ consumerName: 'ledger', entry: 'functions/ledger/handler.ts' });
 * ```
 */
export function resolveInboxConsumerProps(props: InboxConsumerProps): InboxConsumerSettings {
  const fail = (message: string): never => {
    throw new Error(`InboxConsumer ${props.consumerName}: ${message}`);
  };
  if (typeof props.consumerName !== 'string' || !CONSUMER_NAME_PATTERN.test(props.consumerName)) {
    fail(
      `consumerName must be ${CONSUMER_NAME_RULE} (given ${JSON.stringify(props.consumerName)}).`,
    );
  }
  for (const name of Object.keys(props.businessTables ?? {})) {
    if (!BUSINESS_TABLE_NAME_PATTERN.test(name)) {
      fail(
        `businessTables key ${JSON.stringify(name)} must match ${BUSINESS_TABLE_NAME_PATTERN.source}: ` +
          'it becomes part of an environment variable name.',
      );
    }
  }
  const fifo = props.fifo ?? false;
  const functionTimeout = props.functionTimeout ?? Duration.seconds(30);
  const retentionPeriod = props.retentionPeriod ?? Duration.days(4);
  const deadLetterRetentionPeriod = props.deadLetterRetentionPeriod ?? MAX_RETENTION;
  const batchingSeconds = props.maxBatchingWindow?.isUnresolved()
    ? 0
    : (props.maxBatchingWindow?.toSeconds() ?? 0);
  const settings: InboxConsumerSettings = {
    consumerName: props.consumerName,
    fifo,
    contentBasedDeduplication: props.contentBasedDeduplication ?? false,
    maxReceiveCount: props.maxReceiveCount ?? 5,
    retentionPeriod,
    deadLetterRetentionPeriod,
    functionTimeout,
    visibilityTimeout:
      props.visibilityTimeout ??
      Duration.seconds(6 * functionTimeout.toSeconds() + batchingSeconds),
    memorySize: props.memorySize ?? 512,
    inboxTtl: props.inboxTtl ?? defaultInboxTtl(retentionPeriod, deadLetterRetentionPeriod),
    inboxTableRemovalPolicy: props.inboxTableRemovalPolicy ?? RemovalPolicy.RETAIN,
    batchSize: props.batchSize ?? 10,
    maxBatchingWindow: props.maxBatchingWindow,
    maxConcurrency: props.maxConcurrency,
    queueAgeAlarmThreshold: props.queueAgeAlarmThreshold ?? Duration.minutes(15),
    metricsNamespace: props.metricsNamespace ?? 'SqsInbox',
  };
  checkQueue(settings, fail);
  checkFunction(settings, fail);
  checkEventSource(settings, fail);
  return settings;
}

type Fail = (message: string) => never;

function checkQueue(s: InboxConsumerSettings, fail: Fail): void {
  if (s.contentBasedDeduplication && !s.fifo) {
    fail('contentBasedDeduplication is only for FIFO queues; set fifo: true or drop it.');
  }
  if (
    isNumber(s.maxReceiveCount) &&
    !(Number.isInteger(s.maxReceiveCount) && s.maxReceiveCount >= 2 && s.maxReceiveCount <= 1000)
  ) {
    fail(
      `maxReceiveCount must be an integer from 2 to 1000 (given ${s.maxReceiveCount}), so a crash is retried before the DLQ.`,
    );
  }
  const retention = seconds(s.retentionPeriod);
  const dlqRetention = seconds(s.deadLetterRetentionPeriod);
  if (retention !== undefined && (retention < 60 || retention > MAX_RETENTION.toSeconds())) {
    fail(`retentionPeriod must be between 60 seconds and 14 days (given ${retention} s).`);
  }
  if (dlqRetention !== undefined && dlqRetention > MAX_RETENTION.toSeconds()) {
    fail(`deadLetterRetentionPeriod must be at most 14 days (given ${dlqRetention} s).`);
  }
  if (retention !== undefined && dlqRetention !== undefined && dlqRetention <= retention) {
    fail(
      `deadLetterRetentionPeriod (${dlqRetention} s) must be longer than retentionPeriod (${retention} s): ` +
        'a standard DLQ keeps the original enqueue time, so a shorter one expires redriven messages at once. ' +
        'Raise deadLetterRetentionPeriod or shorten retentionPeriod.',
    );
  }
  const ttl = seconds(s.inboxTtl);
  if (ttl !== undefined && ttl > TTL_SECONDS_RANGE.max) {
    fail(
      `inboxTtl must be at most ${TTL_SECONDS_RANGE.max} s, the library's limit (given ${ttl} s).`,
    );
  }
  const horizon = redeliveryHorizonSeconds(retention, dlqRetention);
  if (ttl !== undefined && horizon !== undefined && ttl < horizon) {
    fail(
      `inboxTtl (${ttl} s) must be at least the redelivery horizon with one DLQ redrive, ${horizon} s (retentionPeriod + deadLetterRetentionPeriod + retentionPeriod: a message the library dead-letters, and any message in a FIFO DLQ, starts the DLQ's retention afresh, and a redrive restarts it again); ` +
        'a shorter TTL forgets a message that can still come back and applies it twice. Raise inboxTtl or shorten the retention periods.',
    );
  }
}

/**
 * How long after it was first sent a message can still be delivered, one redrive from the DLQ
 * included: up to `retention` in its queue; then in the DLQ, where a message the library sends
 * (and any message of a FIFO DLQ) starts `dlqRetention` afresh; then redriven, a new message
 * whose retention starts again. The same for standard and FIFO queues.
 */
function redeliveryHorizonSeconds(retention?: number, dlqRetention?: number): number | undefined {
  if (retention === undefined || dlqRetention === undefined) return undefined;
  return retention + dlqRetention + retention;
}

/** The redelivery horizon plus a day for clock skew and TTL's lag. */
function defaultInboxTtl(retention: Duration, dlqRetention: Duration): Duration {
  const horizon = redeliveryHorizonSeconds(seconds(retention), seconds(dlqRetention));
  return horizon === undefined
    ? Duration.seconds(DEFAULT_TTL_SECONDS)
    : Duration.seconds(horizon + 86_400);
}

function checkFunction(s: InboxConsumerSettings, fail: Fail): void {
  const timeout = seconds(s.functionTimeout);
  const visibility = seconds(s.visibilityTimeout);
  if (timeout !== undefined && (timeout < 1 || timeout > 900)) {
    fail(`functionTimeout must be between 1 second and 15 minutes (given ${timeout} s).`);
  }
  const window = seconds(s.maxBatchingWindow) ?? 0;
  if (timeout !== undefined && visibility !== undefined && visibility < 6 * timeout + window) {
    const rule =
      window > 0
        ? `6 × functionTimeout + maxBatchingWindow = ${6 * timeout + window} s`
        : `6 × functionTimeout = ${6 * timeout} s`;
    fail(
      `visibilityTimeout must be at least ${rule} (given ${visibility} s); raise visibilityTimeout or lower functionTimeout.`,
    );
  }
  if (visibility !== undefined && visibility > 43_200) {
    fail(`visibilityTimeout must be at most 12 hours (given ${visibility} s).`);
  }
  if (
    isNumber(s.memorySize) &&
    !(Number.isInteger(s.memorySize) && s.memorySize >= 128 && s.memorySize <= 10_240)
  ) {
    fail(`memorySize must be an integer from 128 to 10240 MB (given ${s.memorySize}).`);
  }
}

function checkEventSource(s: InboxConsumerSettings, fail: Fail): void {
  const maxBatch = s.fifo ? 10 : 10_000;
  if (
    isNumber(s.batchSize) &&
    !(Number.isInteger(s.batchSize) && s.batchSize >= 1 && s.batchSize <= maxBatch)
  ) {
    fail(
      `batchSize must be an integer from 1 to ${maxBatch} for a ${s.fifo ? 'FIFO' : 'standard'} queue (given ${s.batchSize}).`,
    );
  }
  const window = seconds(s.maxBatchingWindow);
  if (s.fifo && s.maxBatchingWindow !== undefined) {
    fail('maxBatchingWindow is not supported for FIFO queues; drop it.');
  }
  if (window !== undefined && window > 300) {
    fail(`maxBatchingWindow must be at most 300 seconds (given ${window} s).`);
  }
  // Lambda refuses a batch above 10 without a window of 1 second or more, a window of 0 included
  // (https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html).
  const noWindow = s.maxBatchingWindow === undefined || (window !== undefined && window < 1);
  if (isNumber(s.batchSize) && s.batchSize > 10 && noWindow) {
    const given = window === undefined ? 'none given' : `given ${window} s`;
    fail(
      `a batchSize above 10 (given ${s.batchSize}) needs a maxBatchingWindow of at least 1 second (${given}).`,
    );
  }
  if (s.maxConcurrency !== undefined && isNumber(s.maxConcurrency)) {
    if (
      !(Number.isInteger(s.maxConcurrency) && s.maxConcurrency >= 2 && s.maxConcurrency <= 1000)
    ) {
      fail(`maxConcurrency must be an integer from 2 to 1000 (given ${s.maxConcurrency}).`);
    }
  }
}

function isNumber(value: number): boolean {
  return !Token.isUnresolved(value);
}

function seconds(duration: Duration | undefined): number | undefined {
  if (duration === undefined || duration.isUnresolved()) return undefined;
  return duration.toSeconds();
}
