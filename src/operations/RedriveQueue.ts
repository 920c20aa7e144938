import type { SQSMessageAttributes, SQSRecord } from 'aws-lambda';

/**
 * The DLQ a redrive or report reads, and the queues it sends back to: what the run needs of SQS.
 * Received messages come in Lambda's record shape (`eventSourceARN` the DLQ's ARN), so the
 * consumer's own reader reads them.
 *
 * @example
 * ```ts
 * const records = await queue.receive(300);
 * await queue.release(records);
 * ```
 */
export interface RedriveQueue {
  /** The DLQ's ARN. */
  readonly arn: string;
  /** Whether the DLQ is a FIFO queue. */
  readonly fifo: boolean;
  /** Up to ten messages, hidden for `visibilitySeconds`; none when the queue has none visible. */
  receive(visibilitySeconds: number): Promise<readonly SQSRecord[]>;
  /** Keeps received messages hidden for `visibilitySeconds` more, from now. */
  hide(records: readonly SQSRecord[], visibilitySeconds: number): Promise<void>;
  /** Makes received messages visible again at once. */
  release(records: readonly SQSRecord[]): Promise<void>;
  /** Deletes a received message. */
  remove(record: SQSRecord): Promise<void>;
  /** Sends a copy to the queue of `destinationArn`; resolves to the new message's id. */
  sendBack(destinationArn: string, copy: RedrivenCopy): Promise<string>;
  /** The DLQ's approximate depth and its retention period. */
  depth(): Promise<QueueDepth>;
  /** How long the source queue of `arn` keeps messages, when it can be read. */
  retentionSecondsOf(arn: string): Promise<number | undefined>;
}

/**
 * What the redrive sends back: the DLQ message's body, its own attributes without the
 * library's diagnostics plus where it came from, and on a FIFO queue its group and a
 * deduplication id derived from the DLQ message (a resend within five minutes is dropped).
 *
 * @example
 * ```ts
 * await queue.sendBack(source, { body, messageAttributes, groupId, deduplicationId });
 * ```
 */
export interface RedrivenCopy {
  readonly body: string;
  readonly messageAttributes: SQSMessageAttributes;
  readonly traceHeader?: string;
  readonly groupId?: string;
  readonly deduplicationId?: string;
}

/**
 * A queue's approximate counts (SQS's `ApproximateNumberOfMessages…`) and retention.
 *
 * @example
 * ```ts
 * const { visible, inFlight } = await queue.depth();
 * ```
 */
export interface QueueDepth {
  readonly visible: number;
  readonly inFlight: number;
  readonly retentionSeconds: number;
}
