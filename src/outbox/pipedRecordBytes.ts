import { marshall } from '@aws-sdk/util-dynamodb';
import { OUTBOX_LIMITS, OutboxAttribute } from '../constants/values.js';
import { utf8Bytes } from './messageSize.js';
import type { OutboxItem } from './outboxItem.js';

/**
 * What the message an `OutboxPipe` sends for an item takes, in bytes, by part: the pipe sends the
 * item's stream record as JSON (it has no input template).
 *
 * @example
 * ```ts
 * const { imageBytes, envelopeBytes, totalBytes } = pipedRecordBytes(item, 'outbox');
 * ```
 */
export interface PipedRecordBytes {
  /**
   * The record's `dynamodb.NewImage` (without a group's `seq`) and `dynamodb.Keys`, the item in
   * DynamoDB JSON, counted exactly as compact JSON: the body is a JSON string there, escaped as
   * `JSON.stringify` escapes it (`"` and `\` two bytes, control characters two or six, other
   * text as UTF-8).
   */
  readonly imageBytes: number;
  /**
   * A bound, not a count, on the rest: the record's `eventID`, `eventName`, `eventVersion`,
   * `eventSource`, `awsRegion`, `eventSourceARN` (which holds the table's name),
   * `ApproximateCreationDateTime`, `SequenceNumber`, `SizeBytes`, `StreamViewType`, a group's
   * `seq`, the JSON around them and the whitespace a serialiser may add:
   * `OUTBOX_LIMITS.pipedRecordEnvelopeBytes` plus the table name's bytes.
   */
  readonly envelopeBytes: number;
  readonly totalBytes: number;
}

/**
 * Counts the stream record an `OutboxPipe` sends as an SQS message body for an outbox item
 * (`outboxItem`), the item in DynamoDB JSON as its stream record carries it
 * (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-dynamodb.html shows the
 * record a pipe receives; without an input template a pipe passes it on). Compact JSON with
 * UTF-8 text is assumed: a serialiser that escaped non-ASCII text as `\u` sequences would send
 * more than counted for such a body, which no emulator can show (see "Not run on a real pipe" on
 * the docs' outbox page).
 *
 * @example
 * ```ts
 * pipedRecordBytes(outboxItem(itemPlanOf(message), common), 'outbox').totalBytes <= 262_144;
 * ```
 */
export function pipedRecordBytes(item: OutboxItem, tableName: string): PipedRecordBytes {
  const keys = { [OutboxAttribute.PartitionKey]: item[OutboxAttribute.PartitionKey] ?? '' };
  // In DynamoDB JSON, as the stream record carries the item: what the document client wrote.
  const imageBytes =
    utf8Bytes(JSON.stringify(marshall(item))) + utf8Bytes(JSON.stringify(marshall(keys)));
  const envelopeBytes = OUTBOX_LIMITS.pipedRecordEnvelopeBytes + utf8Bytes(tableName);
  return { imageBytes, envelopeBytes, totalBytes: imageBytes + envelopeBytes };
}
