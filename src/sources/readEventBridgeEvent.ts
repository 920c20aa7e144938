import { OutboxMessageIdField } from '../constants/values.js';
import { EnvelopeMismatchError } from '../errors.js';
import { MessageSource, type UnwrappedRecord } from './MessageSource.js';
import { outboxIdOf, outboxKey } from './readOutboxId.js';

type Json = Record<string, unknown>;

const STRING_FIELDS = ['version', 'id', 'source', 'account', 'time', 'region'] as const;

/**
 * Whether a parsed body looks like an EventBridge event: `source`, `detail-type` and `detail`.
 *
 * @example
 * ```ts
 * isEventBridgeEvent({ source: 'shop.orders', 'detail-type': 'OrderPlaced', detail: {} }); // => true
 * ```
 */
export function isEventBridgeEvent(value: Json): boolean {
  return typeof value['detail-type'] === 'string' && 'detail' in value && 'source' in value;
}

/**
 * Reads an EventBridge event: `detail` is the payload, the event's other fields the envelope,
 * and its `id` (the same on every target retry) the default key. An event missing one of its
 * fields was cut by an input transformer and is refused.
 *
 * @example
 * ```ts
 * readEventBridgeEvent(JSON.parse(record.body), record.messageId, ['eventbridge']).upstreamKey; // => 'eventbridge:<id>'
 * ```
 */
export function readEventBridgeEvent(
  event: Json,
  messageId: string,
  declared: readonly string[],
): UnwrappedRecord {
  const missing = STRING_FIELDS.filter((name) => typeof event[name] !== 'string' || !event[name]);
  if (missing.length > 0 || !Array.isArray(event.resources)) {
    throw new EnvelopeMismatchError(
      messageId,
      declared,
      `an EventBridge event without ${[...missing, ...(Array.isArray(event.resources) ? [] : ['resources'])].join(', ')}`,
      "Send the whole event to the queue: a target's input transformer drops the id that keys it.",
    );
  }
  const field = (name: (typeof STRING_FIELDS)[number]) => String(event[name]);
  const { detail, outboxId } = withoutOutboxId(event.detail);
  return {
    envelope: {
      kind: MessageSource.EventBridge,
      id: field('id'),
      source: field('source'),
      detailType: String(event['detail-type']),
      time: field('time'),
      account: field('account'),
      region: field('region'),
      resources: (event.resources as unknown[]).map(String),
      version: field('version'),
    },
    payload: { value: detail },
    upstreamKey: outboxId === undefined ? `eventbridge:${field('id')}` : outboxKey(outboxId),
  };
}

/**
 * A relayed event's detail carries its outbox id (each send gets a new event `id`): it keys the
 * message, and the payload is the detail as published, without it.
 */
function withoutOutboxId(detail: unknown): { detail: unknown; outboxId?: string } {
  if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) return { detail };
  const { [OutboxMessageIdField.EventMember]: id, ...published } = detail as Json;
  const outboxId = outboxIdOf(id);
  return outboxId === undefined ? { detail } : { detail: published, outboxId };
}
