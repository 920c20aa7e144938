import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { OutboxAttribute } from '../constants/values.js';
import type { InboxEntry } from '../core/inboxEntry.js';
import { outboxItemPk } from '../outbox/planOutboxItems.js';

/** One message an entry published, as the outbox table holds it now. */
export interface PublishedMessageState {
  readonly id: string;
  readonly destination: string;
  /**
   * Whether the outbox table still holds the message: its own item, or its group's item still
   * carrying it (a later commit to the group replaces the messages the item carries). The relay
   * leaves items to their TTL, so a message held may already have been relayed.
   */
  readonly inOutboxTable: boolean;
}

/**
 * Reads, for each message an inbox entry records as published, whether the outbox table still
 * holds it: one `GetItem` per outbox item. An operator's lookup, not a path of the processor.
 *
 * @example
 * ```ts
 * const states = await findPublishedMessages(client, 'outbox', entry.published ?? []);
 * ```
 */
export async function findPublishedMessages(
  client: DynamoDBDocumentClient,
  tableName: string,
  published: NonNullable<InboxEntry['published']>,
): Promise<PublishedMessageState[]> {
  const held = new Map<string, Promise<ReadonlySet<string>>>();
  const idsIn = (pk: string) => {
    let ids = held.get(pk);
    if (ids === undefined) {
      ids = messageIdsOf(client, tableName, pk);
      held.set(pk, ids);
    }
    return ids;
  };
  return Promise.all(
    published.map(async (message) => {
      const { id, destination } = message;
      return { id, destination, inOutboxTable: (await idsIn(outboxItemPk(message))).has(id) };
    }),
  );
}

/** The ids of the messages one outbox item carries; none when it is gone. */
async function messageIdsOf(
  client: DynamoDBDocumentClient,
  tableName: string,
  pk: string,
): Promise<ReadonlySet<string>> {
  const { Item } = await client.send(
    new GetCommand({
      TableName: tableName,
      Key: { [OutboxAttribute.PartitionKey]: pk },
      ProjectionExpression: '#messages',
      ExpressionAttributeNames: { '#messages': OutboxAttribute.Messages },
    }),
  );
  const messages = Item?.[OutboxAttribute.Messages];
  if (!Array.isArray(messages)) return new Set();
  return new Set(messages.map((message: { id?: unknown }) => String(message.id)));
}
