/**
 * The conditions and updates the store writes inbox entries with, in one place so that each
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
  /** Not completed and held by no live lease (released, or its lease lapsed). */
  free: '(#status <> :completed AND (attribute_not_exists(#leaseUntil) OR #leaseUntil < :nowMillis))',
  /** Resumable by a claim: free, live, and journaled for this payload. */
  resumable:
    '(#status <> :completed AND #expiresAt >= :nowEpochSeconds AND #payloadHash IN (:payloadHash, :bodyHash) ' +
    'AND (attribute_not_exists(#leaseUntil) OR #leaseUntil < :nowMillis))',
  /** Owned by the attempt: its owner token and its fencing counter. */
  fenced: '#owner = :owner AND #epoch = :epoch',
} as const;

const CLAIMED =
  '#status = :inProgress, #owner = :owner, #leaseUntil = :leaseUntil, #consumer = :consumer, ' +
  '#key = :key, #messageId = :messageId, #payloadHash = :payloadHash, #expiresAt = :expiresAt';

/**
 * The updates of the entry: a claim that keeps the journal, one that starts afresh (the entry
 * had expired), a journal write, a heartbeat, a release and a commit.
 *
 * @example
 * ```ts
 * new UpdateCommand({ TableName, Key, UpdateExpression: ENTRY_UPDATE.heartbeat, ... });
 * ```
 */
export const ENTRY_UPDATE = {
  claim: `SET ${CLAIMED}, #steps = if_not_exists(#steps, :noSteps) ADD #epoch :one, #attempts :one`,
  claimAfresh: `SET ${CLAIMED}, #steps = :noSteps, #attempts = :one REMOVE #lastError, #processedAt ADD #epoch :one`,
  journal: 'SET #steps.#step = :step',
  heartbeat: 'SET #leaseUntil = :leaseUntil, #expiresAt = :expiresAt',
  release: 'SET #status = :failed, #lastError = :lastError REMOVE #owner, #leaseUntil',
  commit:
    'SET #status = :completed, #messageId = :messageId, #payloadHash = :payloadHash, ' +
    '#processedAt = :processedAt, #expiresAt = :expiresAt REMOVE #owner, #leaseUntil',
} as const;
