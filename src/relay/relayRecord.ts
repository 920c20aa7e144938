import type { DynamoDBRecord } from 'aws-lambda';
import { InboxMetric } from '../constants/values.js';
import type { InboxTracer } from '../core/InboxTracer.js';
import type { InboxLogger, InboxMetrics } from '../core/types.js';
import { errorMessage } from '../errors/errorText.js';
import { DestinationRefusedError } from '../errors.js';
import {
  OUTBOX_DEAD_LETTER_KIND,
  type OutboxDeadLetter,
  type OutboxDeadLetterSink,
} from '../outbox/OutboxDeadLetter.js';
import type { OutboxSender, OutgoingTrace } from '../outbox/OutboxSender.js';
import type { OutgoingMessage } from '../outbox/OutgoingMessage.js';
import { observeSend } from './observeSend.js';
import { readOutboxRecord } from './readOutboxRecord.js';

/**
 * What became of one stream record: its messages sent (`relayed`, some perhaps dead-lettered),
 * passed over (`skipped`: no outbox change), dead-lettered whole (`deadLettered`: unreadable),
 * or `failed`, for Lambda to retry from it.
 *
 * @example
 * ```ts
 * const failed = outcomes.filter((outcome) => outcome.status === 'failed');
 * ```
 * @public
 */
export interface RelayOutcome {
  /** The stream record's `SequenceNumber`. */
  readonly sequenceNumber: string;
  /** What became of the record (see above). */
  readonly status: 'relayed' | 'skipped' | 'deadLettered' | 'failed';
  /** Messages sent to their destination by this attempt. */
  readonly sent: number;
  /** Messages dead-lettered by this attempt. */
  readonly deadLettered: number;
  /**
   * Why the record `failed`: what the sender or the dead-letter sink threw, or why the record
   * could not be read now. Set only when `status` is `failed`.
   */
  readonly error?: unknown;
}

/** What relaying a record needs. */
export interface RelayDependencies {
  readonly sender: OutboxSender;
  readonly deadLetters: OutboxDeadLetterSink;
  readonly logger: InboxLogger;
  readonly metrics: InboxMetrics | undefined;
  /** Undefined: no spans (the stored trace context is still sent on). */
  readonly tracer?: InboxTracer | undefined;
  readonly now: () => number;
}

/**
 * Relays one stream record: sends its messages in order, one at a time; dead-letters a message
 * its destination refuses for good, with the reason, and goes on; stops at the first message
 * that cannot be sent now, and reports the record failed. Never throws.
 *
 * @example
 * ```ts
 * const outcome = await relayRecord(record, dependencies);
 * ```
 */
export async function relayRecord(
  record: DynamoDBRecord,
  deps: RelayDependencies,
): Promise<RelayOutcome> {
  const read = readOutboxRecord(record);
  const { sequenceNumber } = read;
  if (read.kind === 'skip') return { sequenceNumber, status: 'skipped', sent: 0, deadLettered: 0 };
  if (read.kind === 'unreadable') {
    if (read.retry) return failed(sequenceNumber, 0, 0, read.error, deps);
    const letter = deadLetter(deps, record, read.error, { image: read.image });
    const error = await sendDeadLetter(letter, deps);
    if (error !== undefined) return failed(sequenceNumber, 0, 0, error, deps);
    return { sequenceNumber, status: 'deadLettered', sent: 0, deadLettered: 1 };
  }
  let sent = 0;
  let deadLettered = 0;
  for (const message of read.messages) {
    const result = await observeSend(message, read, deps, (trace) =>
      sendOne(message, record, deps, trace),
    );
    if (result === 'deadLettered') deadLettered += 1;
    else if (result !== undefined)
      return failed(sequenceNumber, sent, deadLettered, result.error, deps);
    else sent += 1;
  }
  return { sequenceNumber, status: 'relayed', sent, deadLettered };
}

/** Sends a message; undefined when sent, 'deadLettered' when refused and dead-lettered. */
async function sendOne(
  message: OutgoingMessage,
  record: DynamoDBRecord,
  deps: RelayDependencies,
  trace: OutgoingTrace | undefined,
) {
  try {
    await (trace === undefined ? deps.sender.send(message) : deps.sender.send(message, trace));
    deps.metrics?.addMetric(InboxMetric.OutboxMessagesRelayed, 'Count', 1);
    return undefined;
  } catch (error) {
    if (!(error instanceof DestinationRefusedError)) return { error };
    deps.logger.error('destination refused an outgoing message; dead-lettering it', {
      messageId: message.id,
      destination: message.destination,
      code: error.code,
    });
    const dead = await sendDeadLetter(deadLetter(deps, record, error, { message }), deps);
    return dead === undefined ? 'deadLettered' : { error: dead };
  }
}

function deadLetter(
  deps: RelayDependencies,
  record: DynamoDBRecord,
  error: Error,
  what: { message?: OutgoingMessage; image?: unknown },
): OutboxDeadLetter {
  const code = error instanceof DestinationRefusedError ? { code: error.code } : {};
  return {
    kind: OUTBOX_DEAD_LETTER_KIND,
    reason: { error: error.name, ...code, message: errorMessage(error).slice(0, 1024) },
    ...what,
    record: {
      sequenceNumber: record.dynamodb?.SequenceNumber ?? '',
      ...(record.eventID ? { eventID: record.eventID } : {}),
      ...pkOf(record),
    },
    failedAt: new Date(deps.now()).toISOString(),
  };
}

function pkOf(record: DynamoDBRecord): { pk?: string } {
  const pk = record.dynamodb?.Keys?.pk?.S;
  return pk === undefined ? {} : { pk };
}

async function sendDeadLetter(letter: OutboxDeadLetter, deps: RelayDependencies): Promise<unknown> {
  try {
    await deps.deadLetters.send(letter);
    deps.metrics?.addMetric(InboxMetric.OutboxDeadLettered, 'Count', 1);
    return undefined;
  } catch (error) {
    return error;
  }
}

function failed(
  sequenceNumber: string,
  sent: number,
  deadLettered: number,
  error: unknown,
  deps: RelayDependencies,
): RelayOutcome {
  deps.metrics?.addMetric(InboxMetric.OutboxRecordsFailed, 'Count', 1);
  deps.logger.warn('stream record not relayed; Lambda retries it and the records after it', {
    sequenceNumber,
    sent,
    error: {
      name: error instanceof Error ? error.name : typeof error,
      message: errorMessage(error),
    },
  });
  return { sequenceNumber, status: 'failed', sent, deadLettered, error };
}
