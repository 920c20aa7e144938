import { randomBytes, randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { InboxError } from '../../errors/InboxError.js';
import { InvalidConfigurationError } from '../../errors.js';
import { systemRuntime } from '../../runtime/InboxRuntime.js';
import { TEST_ACCOUNT, TEST_REGION } from './deliveredRecord.js';

/**
 * Options of {@link lambdaContext}.
 *
 * @example
 * ```ts
 * const options: LambdaContextOptions = { remainingMillis: 5_000, now: () => clock.now() };
 * ```
 * @public
 */
export interface LambdaContextOptions {
  /** The invocation's time left when the context is made, in milliseconds; default 30,000. */
  readonly remainingMillis?: number;
  /** The function's name; default `inbox-consumer`. */
  readonly functionName?: string;
  /** The clock the remaining time counts down by (epoch milliseconds); default `Date.now`. */
  readonly now?: () => number;
  /** The invocation's request id; default a random UUID. */
  readonly awsRequestId?: string;
  /** The function's memory, in MB; default 128. */
  readonly memoryLimitMB?: number;
}

const DEFAULT_REMAINING_MILLIS = 30_000;

/**
 * A Lambda invocation's context: its request id, function name, ARN, version, memory and log
 * group and stream as Lambda names them, and `getRemainingTimeInMillis`, which counts down from
 * `remainingMillis` by the given clock (never below 0). The processor takes its deadline from
 * it: pass a clock you move to make a batch run out of time. The deprecated `done`, `fail` and
 * `succeed` throw: an async handler returns or throws instead.
 *
 * @example
 * ```ts
 * import { lambdaContext, sqsEvent } from 'sqs-inbox/testing';
 * let nowMillis = 0;
 * const context = lambdaContext({ remainingMillis: 10_000, now: () => nowMillis });
 * nowMillis += 4_000; // context.getRemainingTimeInMillis() === 6_000
 * await processor.process(sqsEvent(record), context);
 * ```
 * @public
 */
export function lambdaContext(options: LambdaContextOptions = {}): Context {
  const now = options.now ?? (() => systemRuntime.now());
  const remainingMillis = options.remainingMillis ?? DEFAULT_REMAINING_MILLIS;
  if (!Number.isFinite(remainingMillis) || remainingMillis < 0) {
    throw new InvalidConfigurationError('remainingMillis', remainingMillis, 'milliseconds, ≥ 0');
  }
  const endsAtMillis = now() + remainingMillis;
  const functionName = options.functionName ?? 'inbox-consumer';
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${TEST_REGION}:${TEST_ACCOUNT}:function:${functionName}`,
    memoryLimitInMB: String(options.memoryLimitMB ?? 128),
    awsRequestId: options.awsRequestId ?? randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: logStreamName(now()),
    getRemainingTimeInMillis: () => Math.max(0, endsAtMillis - now()),
    done: () => refuse('done'),
    fail: () => refuse('fail'),
    succeed: () => refuse('succeed'),
  };
}

/** Lambda's stream name: the day the execution environment started, its version, an id. */
function logStreamName(nowMillis: number): string {
  const day = new Date(nowMillis).toISOString().slice(0, 10).replace(/-/g, '/');
  return `${day}/[$LATEST]${randomBytes(16).toString('hex')}`;
}

function refuse(method: string): never {
  throw new InboxError(
    `context.${method}() is a callback of Node.js runtimes before async handlers, not modelled ` +
      'by lambdaContext(): return from the handler, or throw.',
  );
}
