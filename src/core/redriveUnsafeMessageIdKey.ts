import type { ParsedMessage } from './types.js';

/**
 * The SQS-assigned id as the dedup key: a FIFO record's `MessageDeduplicationId`, else its
 * `messageId`. It deduplicates SQS's own redeliveries, and nothing else. **A DLQ redrive applies
 * a committed message again with this key**: a redrive (console or `StartMessageMoveTask`)
 * sends a new message with a new `messageId`, and a FIFO dead-letter queue replaces the
 * deduplication id with the original `messageId`. A message reaches the DLQ after it
 * committed when its invocation timed out or crashed before Lambda deleted it. Neither does
 * it see a producer's retry or an SNS or EventBridge redelivery, which send new messages.
 *
 * Use it only when the body carries no id of its own and no DLQ is ever redriven to the
 * source queue without checking the inbox first; otherwise give `key` a function that returns
 * the message's own id (`({ body }) => body.paymentId`). On a FIFO queue with content-based
 * deduplication the deduplication id is the body's hash: identical bodies are then one message
 * for `ttlSeconds`.
 *
 * @example
 * ```ts
 * declare const auditHandler: MessageHandler<unknown>;
 * // ---cut---
 * import { createBatchProcessor, redriveUnsafeMessageIdKey } from 'sqs-inbox';
 * const processor = createBatchProcessor(auditHandler, {
 *   store, consumer: 'audit-log', key: redriveUnsafeMessageIdKey,
 * });
 * ```
 * @public
 */
export function redriveUnsafeMessageIdKey(message: ParsedMessage<unknown>): string {
  return message.attributes.MessageDeduplicationId ?? message.messageId;
}
