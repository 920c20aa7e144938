import { randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { systemRuntime } from '../../runtime/InboxRuntime.js';
import {
  type DeliveryOptions,
  deliveredRecord,
  TEST_ACCOUNT,
  TEST_REGION,
} from './deliveredRecord.js';

/**
 * Options of {@link eventBridgeRecord}: the event's fields, and how SQS delivered it.
 *
 * @example
 * ```ts
 * const options: EventBridgeRecordOptions = { source: 'shop.orders', detailType: 'OrderPlaced', id: 'evt-1' };
 * ```
 * @public
 */
export interface EventBridgeRecordOptions extends DeliveryOptions {
  /** The event's `source`: who emitted it (`shop.orders`). */
  readonly source: string;
  /** The event's `detail-type`: what happened (`OrderPlaced`). */
  readonly detailType: string;
  /** The event's `id`, the `eventbridge` source's default key; default a random UUID. */
  readonly id?: string;
  /** The event's `time`, epoch milliseconds (sent as ISO 8601, to the second); default now. */
  readonly timeMillis?: number;
  /** The event's `resources`; default none. */
  readonly resources?: readonly string[];
  /** The event's `account`; default `123456789012`. */
  readonly account?: string;
  /** The event's `region`; default `us-east-1`. */
  readonly region?: string;
  /**
   * The target's `MessageGroupId` (its `SqsParameters`): the queue is a FIFO queue, with the
   * content-based deduplication EventBridge needs of one, so the deduplication id is the SHA-256
   * of the body. Default none: a standard queue.
   */
  readonly groupId?: string;
}

/**
 * A record of a queue that is an EventBridge rule's target: the body is the whole event
 * (`version`, `id`, `detail-type`, `source`, `account`, `time`, `region`, `resources`,
 * `detail`), which the `eventbridge` source unwraps and keys by its `id`. With `groupId`, the
 * target is a FIFO queue.
 *
 * @example
 * ```ts
 * import { eventBridgeRecord, sqsEvent } from 'sqs-inbox/testing';
 * const record = eventBridgeRecord({ orderId: 'o-1' }, { source: 'shop.orders', detailType: 'OrderPlaced', id: 'evt-1' });
 * await processor.process(sqsEvent(record)); // sources: ['eventbridge']; the key is 'eventbridge:evt-1'
 * const ordered = eventBridgeRecord({ orderId: 'o-1' }, { source: 'shop.orders', detailType: 'OrderPlaced', groupId: 'o-1' });
 * ```
 * @public
 */
export function eventBridgeRecord(detail: unknown, options: EventBridgeRecordOptions): SQSRecord {
  const timeMillis = options.timeMillis ?? options.sentAtMillis ?? systemRuntime.now();
  const event = {
    version: '0',
    id: options.id ?? randomUUID(),
    'detail-type': options.detailType,
    source: options.source,
    account: options.account ?? TEST_ACCOUNT,
    // EventBridge writes the time to the second.
    time: new Date(timeMillis).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: options.region ?? TEST_REGION,
    resources: [...(options.resources ?? [])],
    detail,
  };
  const fifo = options.groupId === undefined ? undefined : { groupId: options.groupId };
  return deliveredRecord({ body: JSON.stringify(event), fifo }, options);
}
