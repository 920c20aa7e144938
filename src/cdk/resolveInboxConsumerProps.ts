import { Duration, RemovalPolicy, Token } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { DEFAULT_TTL_SECONDS, TTL_SECONDS_RANGE } from '../constants/values.js';
import { checkInboxConsumerShape } from './checkInboxConsumerShape.js';
import type { InboxConsumerProps } from './InboxConsumerProps.js';
import { InboxValidationError } from './InboxValidationError.js';
import { type ConsumerRetrySettings, resolveConsumerRetry } from './resolveConsumerRetry.js';

/**
 * The props with defaults applied, after validation.
 *
 * @example
 * ```ts
 * const { visibilityTimeout }: InboxConsumerSettings = resolveInboxConsumerProps(scope, props);
 * ```
 */
export interface InboxConsumerSettings {
  readonly consumer: string;
  readonly fifo: boolean;
  readonly contentBasedDeduplication: boolean;
  readonly maxReceiveCount: number;
  readonly retentionPeriod: Duration;
  readonly deadLetterRetentionPeriod: Duration;
  readonly functionTimeout: Duration;
  readonly visibilityTimeout: Duration;
  readonly memorySize: number;
  readonly ttl: Duration;
  readonly removalPolicy: RemovalPolicy;
  readonly batchSize: number;
  readonly maxBatchingWindow: Duration | undefined;
  readonly maxConcurrency: number | undefined;
  readonly queueAgeAlarmThreshold: Duration;
  readonly metricsNamespace: string;
  /** Undefined with `retry: false`. */
  readonly retry: ConsumerRetrySettings | undefined;
}

const MAX_RETENTION = Duration.days(14);
// Lambda's own default, for a function of the user's created without one.
const LAMBDA_DEFAULT_TIMEOUT = Duration.seconds(3);

/**
 * Applies defaults and checks the rules AWS would otherwise enforce at deploy time (or never),
 * with messages that name the prop, the value and the fix: an {@link InboxValidationError} on
 * `scope`. Unresolved tokens are skipped.
 *
 * @example
 * ```ts
 * const settings = resolveInboxConsumerProps(this, { consumer: 'ledger', function: { entry } });
 * ```
 */
export function resolveInboxConsumerProps(
  scope: IConstruct,
  props: InboxConsumerProps,
): InboxConsumerSettings {
  const fail = (message: string): never => {
    throw new InboxValidationError(scope, message);
  };
  checkInboxConsumerShape(props, fail);
  const fifo = props.queue?.fifo ?? false;
  const functionTimeout = props.existingFunction
    ? (props.existingFunction.timeout ?? LAMBDA_DEFAULT_TIMEOUT)
    : (props.function?.timeout ?? Duration.seconds(30));
  const retentionPeriod = props.queue?.retentionPeriod ?? Duration.days(4);
  const deadLetterRetentionPeriod = props.deadLetter?.retentionPeriod ?? MAX_RETENTION;
  const maxBatchingWindow = props.eventSource?.maxBatchingWindow;
  const batchingSeconds = maxBatchingWindow?.isUnresolved()
    ? 0
    : (maxBatchingWindow?.toSeconds() ?? 0);
  const settings: Omit<InboxConsumerSettings, 'retry'> = {
    consumer: props.consumer,
    fifo,
    contentBasedDeduplication: props.queue?.contentBasedDeduplication ?? false,
    maxReceiveCount: props.deadLetter?.maxReceiveCount ?? 5,
    retentionPeriod,
    deadLetterRetentionPeriod,
    functionTimeout,
    visibilityTimeout:
      props.queue?.visibilityTimeout ??
      Duration.seconds(6 * functionTimeout.toSeconds() + batchingSeconds),
    memorySize: props.function?.memorySize ?? 512,
    ttl: props.ttl ?? defaultInboxTtl(retentionPeriod, deadLetterRetentionPeriod),
    removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    batchSize: props.eventSource?.batchSize ?? 10,
    maxBatchingWindow,
    maxConcurrency: props.eventSource?.maxConcurrency,
    queueAgeAlarmThreshold: props.monitoring?.queueAgeAlarmThreshold ?? Duration.minutes(15),
    metricsNamespace: props.monitoring?.metricsNamespace ?? 'SqsInbox',
  };
  checkQueue(settings, fail);
  checkFunction(settings, fail);
  checkEventSource(settings, fail);
  return { ...settings, retry: resolveConsumerRetry(props.retry, settings, fail) };
}

type Fail = (message: string) => never;
/** The settings the checks of this file read: all but the `retry` group, checked on its own. */
type QueueAndFunction = Omit<InboxConsumerSettings, 'retry'>;

function checkQueue(s: QueueAndFunction, fail: Fail): void {
  if (s.contentBasedDeduplication && !s.fifo) {
    fail(
      'queue.contentBasedDeduplication is only for FIFO queues; set queue.fifo: true or drop it.',
    );
  }
  if (
    isNumber(s.maxReceiveCount) &&
    !(Number.isInteger(s.maxReceiveCount) && s.maxReceiveCount >= 2 && s.maxReceiveCount <= 1000)
  ) {
    fail(
      `deadLetter.maxReceiveCount must be an integer from 2 to 1000 (given ${s.maxReceiveCount}), so a crash is retried before the DLQ.`,
    );
  }
  const retention = seconds(s.retentionPeriod);
  const dlqRetention = seconds(s.deadLetterRetentionPeriod);
  if (retention !== undefined && (retention < 60 || retention > MAX_RETENTION.toSeconds())) {
    fail(`queue.retentionPeriod must be between 60 seconds and 14 days (given ${retention} s).`);
  }
  if (dlqRetention !== undefined && dlqRetention > MAX_RETENTION.toSeconds()) {
    fail(`deadLetter.retentionPeriod must be at most 14 days (given ${dlqRetention} s).`);
  }
  if (retention !== undefined && dlqRetention !== undefined && dlqRetention <= retention) {
    fail(
      `deadLetter.retentionPeriod (${dlqRetention} s) must be longer than queue.retentionPeriod (${retention} s): ` +
        'a standard DLQ keeps the original enqueue time, so a shorter one expires redriven messages at once. ' +
        'Raise deadLetter.retentionPeriod or shorten queue.retentionPeriod.',
    );
  }
  const ttl = seconds(s.ttl);
  if (ttl !== undefined && ttl > TTL_SECONDS_RANGE.max) {
    fail(`ttl must be at most ${TTL_SECONDS_RANGE.max} s, the library's limit (given ${ttl} s).`);
  }
  const horizon = redeliveryHorizonSeconds(retention, dlqRetention);
  if (ttl !== undefined && horizon !== undefined && ttl < horizon) {
    fail(
      `ttl (${ttl} s) must be at least the redelivery horizon with one DLQ redrive, ${horizon} s (queue.retentionPeriod + deadLetter.retentionPeriod + queue.retentionPeriod: a message the library dead-letters, and any message in a FIFO DLQ, starts the DLQ's retention afresh, and a redrive restarts it again); ` +
        'a shorter TTL forgets a message that can still come back and applies it twice. Raise ttl or shorten the retention periods.',
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

function checkFunction(s: QueueAndFunction, fail: Fail): void {
  const timeout = seconds(s.functionTimeout);
  const visibility = seconds(s.visibilityTimeout);
  if (timeout !== undefined && (timeout < 1 || timeout > 900)) {
    fail(`function.timeout must be between 1 second and 15 minutes (given ${timeout} s).`);
  }
  const window = seconds(s.maxBatchingWindow) ?? 0;
  if (timeout !== undefined && visibility !== undefined && visibility < 6 * timeout + window) {
    const rule =
      window > 0
        ? `6 × the function's timeout + eventSource.maxBatchingWindow = ${6 * timeout + window} s`
        : `6 × the function's timeout = ${6 * timeout} s`;
    fail(
      `queue.visibilityTimeout must be at least ${rule} (given ${visibility} s); raise queue.visibilityTimeout or lower the function's timeout.`,
    );
  }
  if (visibility !== undefined && visibility > 43_200) {
    fail(`queue.visibilityTimeout must be at most 12 hours (given ${visibility} s).`);
  }
  if (
    isNumber(s.memorySize) &&
    !(Number.isInteger(s.memorySize) && s.memorySize >= 128 && s.memorySize <= 10_240)
  ) {
    fail(`function.memorySize must be an integer from 128 to 10240 MB (given ${s.memorySize}).`);
  }
}

function checkEventSource(s: QueueAndFunction, fail: Fail): void {
  const maxBatch = s.fifo ? 10 : 10_000;
  if (
    isNumber(s.batchSize) &&
    !(Number.isInteger(s.batchSize) && s.batchSize >= 1 && s.batchSize <= maxBatch)
  ) {
    fail(
      `eventSource.batchSize must be an integer from 1 to ${maxBatch} for a ${s.fifo ? 'FIFO' : 'standard'} queue (given ${s.batchSize}).`,
    );
  }
  const window = seconds(s.maxBatchingWindow);
  if (s.fifo && s.maxBatchingWindow !== undefined) {
    fail('eventSource.maxBatchingWindow is not supported for FIFO queues; drop it.');
  }
  if (window !== undefined && window > 300) {
    fail(`eventSource.maxBatchingWindow must be at most 300 seconds (given ${window} s).`);
  }
  // Lambda refuses a batch above 10 without a window of 1 second or more, a window of 0 included
  // (https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html).
  const noWindow = s.maxBatchingWindow === undefined || (window !== undefined && window < 1);
  if (isNumber(s.batchSize) && s.batchSize > 10 && noWindow) {
    const given = window === undefined ? 'none given' : `given ${window} s`;
    fail(
      `an eventSource.batchSize above 10 (given ${s.batchSize}) needs an eventSource.maxBatchingWindow of at least 1 second (${given}).`,
    );
  }
  if (s.maxConcurrency !== undefined && isNumber(s.maxConcurrency)) {
    if (
      !(Number.isInteger(s.maxConcurrency) && s.maxConcurrency >= 2 && s.maxConcurrency <= 1000)
    ) {
      fail(
        `eventSource.maxConcurrency must be an integer from 2 to 1000 (given ${s.maxConcurrency}).`,
      );
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
