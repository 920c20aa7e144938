import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { FORMAT_VERSIONS, InboxAttribute, InboxStatus } from '../constants/values.js';
import type { CommitRequest } from '../core/InboxStore.js';
import { type InboxEntry, toEpochSeconds } from '../core/inboxEntry.js';
import { namesIn } from './inboxItem.js';

/**
 * Of a format version the writer reads: an entry stored without one (0.1.0's), or of at most
 * `:formatVersion`, the version the writer writes (see `FORMAT_VERSIONS`).
 *
 * @example
 * ```ts
 * const condition = `${ENTRY_CONDITION.absent} OR ${READABLE_FORMAT}`;
 * ```
 */
export const READABLE_FORMAT =
  '(attribute_not_exists(#formatVersion) OR #formatVersion <= :formatVersion)';

/**
 * The assignment that stamps an item with the format version its writer writes.
 *
 * @example
 * ```ts
 * const update = `SET #status = :inProgress, ${FORMAT_STAMP}`;
 * ```
 */
export const FORMAT_STAMP = '#formatVersion = :formatVersion';

/**
 * The conditions and updates the store (the only module that sends them) writes inbox entries with, in one place so that each
 * rule of the lease reads as one line. Placeholders are those of `ITEM_ATTRIBUTES`.
 *
 * @example
 * ```ts
 * const condition = ENTRY_CONDITION.fenced; // '#owner = :owner AND #epoch = :epoch'
 * ```
 */
export const ENTRY_CONDITION = {
  /** No entry at all. */
  absent: 'attribute_not_exists(#pk)',
  /** Present but past its TTL and not yet swept: it counts as absent. */
  expired: '#expiresAt < :nowEpochSeconds',
  /**
   * Resumable by a claim or a step-less commit: not completed, held by no live lease (released,
   * or its lease lapsed), live, holding this payload's hash (or no journal at all: a step-less
   * attempt's failure record), and of a format version the writer reads (`:formatVersion`, the
   * one it writes; absent on 0.1.0's entries). Another payload's unfinished entry with a journal
   * is never taken over: its journal may hold an effect that already happened; nor is a newer
   * release's, whose journal this one may misread.
   */
  resumable:
    '(#status <> :completed AND #expiresAt >= :nowEpochSeconds ' +
    'AND (#payloadHash IN (:payloadHash, :bodyHash) OR attribute_not_exists(#steps)) ' +
    'AND (attribute_not_exists(#leaseUntil) OR #leaseUntil < :nowMillis) ' +
    `AND ${READABLE_FORMAT})`,
  /**
   * Where a step-less attempt's failure is recorded, besides an absent entry: a released one
   * (`FAILED`, so no lease, live or lapsed, and never committed) of this payload that still
   * lives, of a format version the writer reads. Anything else is another attempt's to tell.
   */
  failed:
    '(#status = :failed AND #expiresAt >= :nowEpochSeconds AND #payloadHash IN (:payloadHash, :bodyHash) ' +
    `AND ${READABLE_FORMAT})`,
  /** Owned by the attempt: its owner token and its fencing counter. */
  fenced: '#owner = :owner AND #epoch = :epoch',
} as const;

/**
 * A claim records whose lease it took over: the owner as the claim found it (every `SET` value
 * is read before the update applies), or its own token when it found none (a new entry, or one
 * released after a failure). So the answer tells a takeover in the one write, also to a retried
 * claim whose first answer was lost, which finds its own claim. Older releases ignore it.
 */
const CLAIMED =
  '#status = :inProgress, #owner = :owner, #leaseUntil = :leaseUntil, #consumer = :consumer, ' +
  '#key = :key, #messageId = :messageId, #payloadHash = :payloadHash, ' +
  '#claimedFrom = if_not_exists(#owner, :owner), ' +
  `#expiresAt = :expiresAt, ${FORMAT_STAMP}`;

/**
 * The updates of the entry: a claim that keeps the journal, one that starts afresh (the entry
 * had expired), a journal write, a heartbeat, a release, a step-less attempt's failure record
 * and a commit. A claim stamps the entry
 * with the format version it writes (a journal it keeps is of a version it reads, so the entry
 * is then of its version); the writes after it are the claiming attempt's own, on its entry.
 *
 * @example
 * ```ts
 * new UpdateCommand({ TableName, Key, UpdateExpression: ENTRY_UPDATE.heartbeat, ... });
 * ```
 */
export const ENTRY_UPDATE = {
  claim: `SET ${CLAIMED}, #steps = if_not_exists(#steps, :noSteps) ADD #epoch :one, #attempts :one`,
  claimAfresh: `SET ${CLAIMED}, #steps = :noSteps, #attempts = :one REMOVE #lastError, #processedAt, #published ADD #epoch :one`,
  journal: 'SET #steps.#step = :step',
  heartbeat: 'SET #leaseUntil = :leaseUntil, #expiresAt = :expiresAt',
  release: 'SET #status = :failed, #lastError = :lastError REMOVE #owner, #leaseUntil',
  recordFailure:
    'SET #status = :failed, #lastError = :lastError, #consumer = :consumer, #key = :key, ' +
    `#messageId = :messageId, #payloadHash = :payloadHash, #expiresAt = :expiresAt, ${FORMAT_STAMP} ` +
    'ADD #attempts :one',
  commit:
    'SET #status = :completed, #messageId = :messageId, #payloadHash = :payloadHash, ' +
    '#processedAt = :processedAt, #expiresAt = :expiresAt REMOVE #owner, #leaseUntil',
} as const;

/** A commit that published: it also records the outbox messages on the entry. */
const COMMIT_PUBLISHED = ENTRY_UPDATE.commit.replace(
  ' REMOVE ',
  ', #published = :published REMOVE ',
);

/**
 * The release's update, carrying the results in hand whose journal writes did not land: step
 * `#j<n>` is set to `:j<n>` in the same fenced write that releases the lease.
 *
 * @example
 * ```ts
 * releaseUpdate(1); // 'SET #status = :failed, #lastError = :lastError, #steps.#j0 = :j0 REMOVE #owner, #leaseUntil'
 * ```
 */
export function releaseUpdate(unjournaledSteps: number): string {
  const [set, remove] = ENTRY_UPDATE.release.split(' REMOVE ');
  let steps = '';
  for (let n = 0; n < unjournaledSteps; n++) steps += `, #steps.#j${n} = :j${n}`;
  return `${set}${steps} REMOVE ${remove}`;
}

const {
  absent: ENTRY_IS_ABSENT,
  expired: ENTRY_HAS_EXPIRED,
  resumable: ENTRY_IS_RESUMABLE,
} = ENTRY_CONDITION;

/**
 * The entry's write in the commit: without a lease, a Put on an absent or expired entry, or on
 * one this payload's attempt left unfinished (released, or its lease lapsed); with a lease, an
 * Update that completes the entry the attempt owns.
 *
 * @example
 * ```ts
 * new TransactWriteCommand({ TransactItems: [entryWrite('inbox', request), ...operations] });
 * ```
 */
export function entryWrite(tableName: string, request: CommitRequest) {
  const { lease } = request;
  const entry = recordedEntry(request);
  const { published } = entry;
  if (lease !== undefined) {
    const update = published ? COMMIT_PUBLISHED : ENTRY_UPDATE.commit;
    return {
      Update: entryUpdate(tableName, entry.pk, update, ENTRY_CONDITION.fenced, {
        ':completed': InboxStatus.Completed,
        ':messageId': entry.messageId,
        ':payloadHash': entry.payloadHash,
        ':processedAt': entry.processedAt,
        ':expiresAt': entry.expiresAt,
        ':published': published,
        ':owner': lease.owner,
        ':epoch': lease.epoch,
      }),
    };
  }
  return {
    Put: {
      TableName: tableName,
      Item: entry as unknown as Record<string, NativeAttributeValue>,
      ConditionExpression: `${ENTRY_IS_ABSENT} OR ${ENTRY_HAS_EXPIRED} OR ${ENTRY_IS_RESUMABLE}`,
      ExpressionAttributeNames: namesIn([ENTRY_IS_ABSENT, ENTRY_HAS_EXPIRED, ENTRY_IS_RESUMABLE]),
      ExpressionAttributeValues: {
        ':nowEpochSeconds': request.nowEpochSeconds,
        ':completed': InboxStatus.Completed,
        ':nowMillis': request.nowMillis ?? request.nowEpochSeconds * 1000,
        ':payloadHash': entry.payloadHash,
        ':bodyHash': otherHash(request),
        ':formatVersion': entry.formatVersion,
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    },
  };
}

/**
 * The entry a commit writes: the request's, with the messages the commit publishes
 * (`InboxEntry.published`: each one's outbox id, destination and group, so that `sqs-inbox
 * message` finds them), none when it publishes nothing.
 *
 * @example
 * ```ts
 * recordedEntry(request).published?.map((message) => message.id);
 * ```
 */
export function recordedEntry(request: Pick<CommitRequest, 'entry' | 'outgoing'>): InboxEntry {
  const { entry, outgoing } = request;
  if (outgoing === undefined || outgoing.length === 0) return entry;
  const published = outgoing.map(({ id, destination, groupId }) => ({
    id,
    destination,
    ...(groupId === undefined ? {} : { groupId }),
  }));
  return { ...entry, published };
}

/**
 * The second hash an entry of this message may hold: an entry written before the consumer
 * declared its source holds the whole body's. The entry's own when there is none.
 */
function otherHash({
  entry,
  payloadHashes = [],
}: {
  readonly entry: Pick<InboxEntry, 'payloadHash'>;
  readonly payloadHashes?: readonly string[] | undefined;
}): string {
  return payloadHashes.find((hash) => hash !== entry.payloadHash) ?? entry.payloadHash;
}

/**
 * An UpdateItem's input on an entry, with exactly the names and values its expressions use
 * (DynamoDB refuses unused ones).
 *
 * @example
 * ```ts
 * entryUpdate('inbox', pk, ENTRY_UPDATE.heartbeat, ENTRY_CONDITION.fenced, values);
 * ```
 */
export function entryUpdate(
  tableName: string,
  pk: string,
  update: string,
  condition: string,
  values: Record<string, NativeAttributeValue>,
): EntryUpdate {
  const text = `${update} ${condition}`;
  return {
    TableName: tableName,
    Key: { [InboxAttribute.PartitionKey]: pk },
    UpdateExpression: update,
    ConditionExpression: condition,
    ExpressionAttributeNames: namesIn([text]),
    ExpressionAttributeValues: Object.fromEntries(
      Object.entries(values).filter(([placeholder]) => new RegExp(`${placeholder}\\b`).test(text)),
    ),
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/**
 * The values every write that may create an entry gives it — who wrote it for which message,
 * its payload's hashes (the payload's and the whole body's), its expiry and format — and the
 * clock its conditions read. `entryUpdate` keeps those its expressions use.
 *
 * @example
 * ```ts
 * entryUpdate('inbox', pk, update, condition, { ...entryValues(entry, hashes, nowMillis), ':owner': owner });
 * ```
 */
export function entryValues(
  entry: Pick<InboxEntry, 'consumer' | 'key' | 'messageId' | 'payloadHash' | 'expiresAt'>,
  payloadHashes: readonly string[],
  nowMillis: number,
): Record<string, NativeAttributeValue> {
  return {
    ':consumer': entry.consumer,
    ':key': entry.key,
    ':messageId': entry.messageId,
    ':payloadHash': entry.payloadHash,
    ':bodyHash': otherHash({ entry, payloadHashes }),
    ':expiresAt': entry.expiresAt,
    ':formatVersion': FORMAT_VERSIONS.inboxEntry,
    ':one': 1,
    ':nowEpochSeconds': toEpochSeconds(nowMillis),
  };
}

/**
 * An entry's UpdateItem, alone or inside the commit's transaction.
 *
 * @example
 * ```ts
 * const update: EntryUpdate = entryUpdate('inbox', pk, update, condition, values);
 * ```
 */
export interface EntryUpdate {
  readonly TableName: string;
  readonly Key: Record<string, NativeAttributeValue>;
  readonly UpdateExpression: string;
  readonly ConditionExpression: string;
  readonly ExpressionAttributeNames: Record<string, string>;
  readonly ExpressionAttributeValues: Record<string, NativeAttributeValue>;
  readonly ReturnValuesOnConditionCheckFailure: 'ALL_OLD';
}
