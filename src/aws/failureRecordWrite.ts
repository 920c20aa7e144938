import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { InboxStatus } from '../constants/values.js';
import type { FailureRecord } from '../core/InboxStore.js';
import { DynamoDBException, isException, translate } from './dynamoDBErrors.js';
import { ENTRY_CONDITION, ENTRY_UPDATE, entryUpdate, entryValues } from './entryWrites.js';

/**
 * Records a step-less attempt's failure on its entry in one conditional `UpdateItem`: an absent
 * entry is created `FAILED` with one attempt; a live `FAILED` one of this payload gets one more
 * attempt and the new last error. A refused condition (a committed entry, a lease, an expired
 * entry, another payload's, a newer format's) is an answer, not an error: the entry is another
 * attempt's to tell. Any other failure is thrown translated, as every store write's is.
 *
 * @example
 * ```ts
 * const { recorded } = await writeFailureRecord(client, 'inbox', request);
 * ```
 */
export async function writeFailureRecord(
  client: DynamoDBDocumentClient,
  tableName: string,
  request: FailureRecord,
): Promise<{ readonly recorded: boolean }> {
  const { entry, lastError, nowMillis } = request;
  const { absent, failed } = ENTRY_CONDITION;
  const input = entryUpdate(
    tableName,
    entry.pk,
    ENTRY_UPDATE.recordFailure,
    `${absent} OR ${failed}`,
    {
      ...entryValues(entry, request.payloadHashes, nowMillis),
      ':failed': InboxStatus.Failed,
      ':lastError': lastError,
    },
  );
  try {
    // The refused item is not needed: nothing is done with it but a DEBUG line.
    const { ReturnValuesOnConditionCheckFailure: _, ...update } = input;
    await client.send(new UpdateCommand(update));
    return { recorded: true };
  } catch (error) {
    if (isException(error, DynamoDBException.ConditionalCheckFailed)) return { recorded: false };
    throw translate(error);
  }
}
