import type { SQSRecord } from 'aws-lambda';
import { deadLetterReason, sentMillis } from './deadLetterFacts.js';

/**
 * Which DLQ messages a run handles: by reason (`inbox.error`, or "no reason recorded"), by send
 * time, and at most `limit` of them. The others are kept, untouched.
 *
 * @example
 * ```ts
 * const selection: RedriveSelection = { reasons: ['DestinationUnavailableError'], limit: 100 };
 * ```
 */
export interface RedriveSelection {
  readonly reasons?: readonly string[];
  readonly sinceMillis?: number;
  readonly untilMillis?: number;
  readonly limit?: number;
}

/**
 * Whether a message is in the selection by reason and send time (the run stops at `limit`).
 *
 * @example
 * ```ts
 * if (!selected(record, selection)) keep(record);
 * ```
 */
export function selected(record: SQSRecord, selection: RedriveSelection | undefined): boolean {
  if (selection === undefined) return true;
  if (selection.reasons !== undefined && !selection.reasons.includes(deadLetterReason(record))) {
    return false;
  }
  const sent = sentMillis(record);
  if (selection.sinceMillis !== undefined && sent < selection.sinceMillis) return false;
  return selection.untilMillis === undefined || sent < selection.untilMillis;
}
