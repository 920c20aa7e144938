import { createHash } from 'node:crypto';
import {
  ChangeMessageVisibilityBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { InboxStatus, inboxPk } from 'sqs-inbox/constants';
import type { ConsumerName, DemoMessage } from './demoTraffic.js';

/** An item of a table, as the document client reads it. */
export type Item = Record<string, unknown>;

/**
 * Every item of a table, read consistently, page by page.
 *
 * @example
 * ```ts
 * const accounts = await scanAll(documentClient, 'accounts');
 * ```
 */
export async function scanAll(client: DynamoDBDocumentClient, table: string): Promise<Item[]> {
  const items: Item[] = [];
  let ExclusiveStartKey: Item | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/**
 * Committed: the consumer's inbox holds the event's key, completed (not an attempt's lease or
 * journal), with this very payload's hash (the payload the producer published).
 *
 * @example
 * ```ts
 * const entries = new Map(inbox.map((entry) => [String(entry.pk), entry]));
 * isCommitted({ consumer: 'ledger', body }, entries, { ledger: 'ledger', … });
 * ```
 */
export function isCommitted(
  message: Pick<DemoMessage, 'consumer' | 'body'>,
  entries: Map<string, Item>,
  consumers: Record<ConsumerName, string>,
): boolean {
  const eventId = eventIdOf(message.body);
  const entry = eventId && entries.get(inboxPk(consumers[message.consumer], eventId));
  return (
    entry !== undefined &&
    entry !== '' &&
    entry.status === InboxStatus.Completed &&
    entry.payloadHash === bodyHash(message.body)
  );
}

/**
 * The hash the inbox stores for a body (SHA-256 hex of its UTF-8 bytes), to tell whether a
 * committed entry is this very body's.
 *
 * @example
 * ```ts
 * bodyHash('{}') // => '44136fa3…'
 * ```
 */
export function bodyHash(body: string): string {
  return createHash('sha256').update(body, 'utf8').digest('hex');
}

/**
 * The `eventId` of a JSON body; undefined for a body that is no JSON or has none.
 *
 * @example
 * ```ts
 * eventIdOf('{"eventId":"evt-1"}') // => 'evt-1'
 * ```
 */
export function eventIdOf(body: string): string | undefined {
  try {
    const { eventId } = JSON.parse(body) as { eventId?: unknown };
    return typeof eventId === 'string' ? eventId : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every message of a dead-letter queue, left in place: received (hidden) until none are left,
 * then made visible again. A FIFO queue hands out one message group at a time, so this reads
 * all of them as long as no group holds more than ten.
 */
export async function peekAll(sqs: SQSClient, queueUrl: string): Promise<Message[]> {
  const seen = new Map<string, Message>();
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 30,
        WaitTimeSeconds: 1,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
      }),
    );
    if (Messages.length === 0) break;
    for (const message of Messages) seen.set(message.MessageId ?? '', message);
  }
  const received = [...seen.values()];
  for (let i = 0; i < received.length; i += 10) {
    const entries = received.slice(i, i + 10).map((m, index) => ({
      Id: String(index),
      ReceiptHandle: m.ReceiptHandle,
      VisibilityTimeout: 0,
    }));
    await sqs.send(
      new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries }),
    );
  }
  return received;
}
