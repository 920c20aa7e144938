import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { InboxAttribute, OPERATION_ITEM_PREFIX } from '../constants/values.js';

/**
 * The partition key of an operation's audit record in the inbox table (`#ops#op#<id>`): a
 * leading `#` is no entry's key.
 *
 * @example
 * ```ts
 * operationRecordPk(operationId); // '#ops#op#3f0c…'
 * ```
 */
export function operationRecordPk(operationId: string): string {
  return `${OPERATION_ITEM_PREFIX}op#${operationId}`;
}

/** How long an operation's record stays in the table: as long as CloudTrail's default history. */
const OPERATION_RECORD_SECONDS = 90 * 86_400;

/** The most message lines one record holds (an item holds 400 KB); the rest are counted. */
export const RECORDED_LINES = 500;

/**
 * Operations' audit records in the inbox table: one item per run, `#ops#op#<operationId>`,
 * expiring by TTL after {@link OPERATION_RECORD_SECONDS}; the run's message lines up to
 * {@link RECORDED_LINES}, and how many more there were.
 *
 * @example
 * ```ts
 * const records = new OperationRecords(client, tableName);
 * await records.put(record, { first: lines, more: 0 }, Date.now());
 * ```
 */
export class OperationRecords {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * Writes (or rewrites) the record of `record.operationId` with its first message lines (at
   * most {@link RECORDED_LINES}) and the count of those past them.
   */
  async put(
    record: { readonly operationId: string },
    lines: { readonly first: readonly object[]; readonly more: number },
    nowMillis: number,
  ): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...record,
          [InboxAttribute.PartitionKey]: operationRecordPk(record.operationId),
          messages: lines.first.slice(0, RECORDED_LINES),
          messagesNotRecorded: lines.more + Math.max(0, lines.first.length - RECORDED_LINES),
          [InboxAttribute.ExpiresAt]: Math.floor(nowMillis / 1000) + OPERATION_RECORD_SECONDS,
        },
      }),
    );
  }
}
