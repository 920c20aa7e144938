import { Duration } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { InboxValidationError } from './InboxValidationError.js';
import { inRange } from './inRange.js';

/**
 * How long DynamoDB Streams keeps a record: 24 hours, then it may be trimmed at any time.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html
 */
const STREAM_RETENTION_SECONDS = 86_400;

/**
 * The `maxRecordAge` an outbox relay (`OutboxRelay`, `OutboxPipe`) accepts, in seconds.
 *
 * The floor is the one Lambda's DynamoDB event source mapping and a pipe's DynamoDB source both
 * set (60 s; their `-1` means infinite, which the constructs never pass). The ceiling is ours:
 * a batch given up at this age goes to the dead-letter queue with its stream range only, and the
 * runbook's redrive (`redriveOutbox`) reads its records back from the stream, which keeps them
 * 24 hours from their arrival. Twelve hours leaves at least twelve for the alarm to page,
 * someone to find why the destination refused, fix it and redrive, a night included. The AWS
 * ceiling (7 days) would leave nothing.
 *
 * https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html
 * https://docs.aws.amazon.com/eventbridge/latest/pipes-reference/API_PipeSourceDynamoDBStreamParameters.html
 *
 * @example
 * ```ts
 * const ok = seconds >= MAX_RECORD_AGE_RANGE.minSeconds && seconds <= MAX_RECORD_AGE_RANGE.maxSeconds;
 * ```
 */
export const MAX_RECORD_AGE_RANGE = { minSeconds: 60, maxSeconds: 43_200 } as const;

/** The default: a batch given up at 6 hours leaves 18 of the stream's 24 to redrive it. */
const DEFAULT_MAX_RECORD_AGE_SECONDS = 21_600;

/**
 * The relay's `maxRecordAge` (the default when not given), refused unless it is a literal from
 * 1 minute to 12 hours: a token is refused too, since what it resolves to at deploy time (7 days,
 * or Lambda's infinite) could not be checked against the stream's 24 hours.
 *
 * @example
 * ```ts
 * resolveMaxRecordAge('OutboxRelay ledger', Duration.hours(25)); // throws: 60 to 43200 (given 90000)
 * ```
 */
export function resolveMaxRecordAge(scope: IConstruct, given: Duration | undefined): Duration {
  const maxRecordAge = given ?? Duration.seconds(DEFAULT_MAX_RECORD_AGE_SECONDS);
  const { minSeconds, maxSeconds } = MAX_RECORD_AGE_RANGE;
  const why =
    `a batch given up at that age must leave time, within the stream's ${STREAM_RETENTION_SECONDS / 3_600} hours, ` +
    'to read it back and redrive it (the runbook). Set it from 1 minute to 12 hours.';
  if (maxRecordAge.isUnresolved()) {
    throw new InboxValidationError(
      scope,
      `maxRecordAge must be a literal duration from ${minSeconds} to ${maxSeconds} seconds, not a token resolved at deploy time: ${why}`,
    );
  }
  const seconds = maxRecordAge.toSeconds({ integral: false });
  inRange(scope, 'maxRecordAge (seconds)', seconds, minSeconds, maxSeconds, why);
  return maxRecordAge;
}
