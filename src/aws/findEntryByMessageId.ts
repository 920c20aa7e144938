import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { InboxAttribute } from '../constants/values.js';

/**
 * Looks for the inbox entry of one consumer that a message id wrote, by a Scan filtered on the
 * id (no index holds message ids): it reads at most `maxItems` items, and says how many it read.
 * An operator's lookup, not a path of the processor.
 *
 * @example
 * ```ts
 * const { pk, scanned } = await findEntryByMessageId(client, 'inbox', 'ledger', id, 100_000);
 * ```
 */
export async function findEntryByMessageId(
  client: DynamoDBDocumentClient,
  tableName: string,
  consumer: string,
  messageId: string,
  maxItems: number,
): Promise<{ readonly pk?: string; readonly scanned: number; readonly complete: boolean }> {
  let scanned = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'begins_with(#pk, :prefix) AND #messageId = :id',
        ExpressionAttributeNames: { '#pk': InboxAttribute.PartitionKey, '#messageId': 'messageId' },
        ExpressionAttributeValues: { ':prefix': `${consumer}#`, ':id': messageId },
        ProjectionExpression: '#pk',
        Limit: Math.min(1000, maxItems - scanned),
        ExclusiveStartKey: start,
      }),
    );
    scanned += page.ScannedCount ?? 0;
    const pk = page.Items?.[0]?.[InboxAttribute.PartitionKey];
    if (typeof pk === 'string') return { pk, scanned, complete: true };
    start = page.LastEvaluatedKey;
  } while (start !== undefined && scanned < maxItems);
  return { scanned, complete: start === undefined };
}
