import { marshall } from '@aws-sdk/util-dynamodb';
import type { OutgoingMessage } from '../../src/outbox/OutgoingMessage.js';
import { type OutboxItem, outboxItem, outboxItemCommon } from '../../src/outbox/outboxItem.js';
import { itemPlanOf } from '../../src/outbox/planOutboxItems.js';

const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/credits.fifo';
const STREAM_ARN =
  'arn:aws:dynamodb:eu-west-1:123456789012:table/outbox/stream/2026-11-26T12:00:00.000';

/**
 * An outbox item as the store writes it for one message to a group; with `shape`, one that only
 * a store that does not know its pipe writes (several messages, message attributes).
 */
export function storedItem(
  body: string,
  id: string,
  shape: { readonly messages?: number; readonly attributes?: boolean } = {},
): OutboxItem {
  const message: OutgoingMessage = {
    id,
    destination: QUEUE,
    kind: 'sqs-fifo',
    body,
    groupId: 'acc-1',
    ...(shape.attributes ? { attributes: { eventId: 'e-1' } } : {}),
  };
  const messages = Array.from({ length: shape.messages ?? 1 }, (_, index) =>
    index === 0 ? message : { ...message, id: `${index}${id.slice(1)}` },
  );
  const common = outboxItemCommon({ consumer: 'ledger', keyHash: 'a'.repeat(16) }, 0, 86_400);
  return outboxItem({ ...itemPlanOf(message), messages }, common);
}

/**
 * The body an EventBridge pipe without an input template sends for an item's stream record: the
 * record as JSON, in the fields of the example event of
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-dynamodb.html, the item in
 * DynamoDB JSON. `bodyType` gives the message's body another type than `S`.
 */
export function pipedRecord(item: OutboxItem, options: { readonly bodyType?: 'N' } = {}): string {
  const image = marshall(item) as Record<string, { L?: Array<{ M?: Record<string, unknown> }> }>;
  const first = image.messages?.L?.[0]?.M;
  if (options.bodyType !== undefined && first !== undefined) first.body = { N: '1' };
  return JSON.stringify(streamRecord(item, { NewImage: image }));
}

/** The stream record of an item's removal: no new image (a pipe's filter keeps these out). */
export function withoutNewImage(item: OutboxItem): string {
  return JSON.stringify({ ...streamRecord(item, {}), eventName: 'REMOVE' });
}

function streamRecord(item: OutboxItem, images: Record<string, unknown>) {
  return {
    eventID: '7f1c0d2e3b4a59687a6b5c4d3e2f1a0b',
    eventVersion: '1.1',
    dynamodb: {
      ApproximateCreationDateTime: 1_795_714_911,
      Keys: marshall({ pk: item.pk }),
      ...images,
      SequenceNumber: '111100000000000000000001',
      SizeBytes: 480,
      StreamViewType: 'NEW_IMAGE',
    },
    awsRegion: 'eu-west-1',
    eventName: 'MODIFY',
    eventSourceARN: STREAM_ARN,
    eventSource: 'aws:dynamodb',
  };
}
