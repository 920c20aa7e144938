import { formatVersionOf } from '../constants/formatVersion.js';
import { FORMAT_VERSIONS, InboxStatus, TransientReason } from '../constants/values.js';
import type { ClaimResult, JournaledStep, LeaseToken } from '../core/InboxStore.js';
import type { InboxEntry } from '../core/inboxEntry.js';
import { FormatVersionError, InboxError, TransientStoreError } from '../errors.js';

/**
 * The attribute names of an inbox item behind the placeholders the store's expressions use.
 * `#pk` and `#expiresAt` are the table's key and TTL attribute; the lease's owner and
 * fencing counter are `leaseOwner` and `leaseEpoch`.
 *
 * @example
 * ```ts
 * namesIn('#owner = :owner') // => { '#owner': 'leaseOwner' }
 * ```
 */
export const ITEM_ATTRIBUTES = {
  '#pk': 'pk',
  '#expiresAt': 'expiresAt',
  '#consumer': 'consumer',
  '#key': 'key',
  '#messageId': 'messageId',
  '#status': 'status',
  '#payloadHash': 'payloadHash',
  '#processedAt': 'processedAt',
  '#owner': 'leaseOwner',
  '#epoch': 'leaseEpoch',
  '#leaseUntil': 'leaseUntil',
  '#attempts': 'attempts',
  '#lastError': 'lastError',
  '#steps': 'steps',
  '#formatVersion': 'formatVersion',
  '#claimedFrom': 'leaseClaimedFrom',
  '#published': 'published',
} as const;

/**
 * The `ExpressionAttributeNames` of expressions: the placeholders they use, and no other
 * (DynamoDB refuses unused ones). `#step` is the journaled step's name.
 *
 * @example
 * ```ts
 * namesIn('SET #steps.#step = :step', { '#step': 'charge' })
 * ```
 */
export function namesIn(
  expressions: readonly string[],
  extra: Record<string, string> = {},
): Record<string, string> {
  const text = expressions.join(' ');
  const used = Object.entries(ITEM_ATTRIBUTES).filter(([placeholder]) =>
    new RegExp(`${placeholder}\\b`).test(text),
  );
  return { ...Object.fromEntries(used), ...extra };
}

/**
 * An inbox item as an entry. Throws {@link FormatVersionError} for an entry of a format version
 * newer than this release reads (before reading anything else of it), and {@link InboxError}
 * for an item that is no sqs-inbox entry (another application's item in the table).
 *
 * @example
 * ```ts
 * const entry = toEntry(item, 'inbox');
 * ```
 */
export function toEntry(item: Record<string, unknown>, tableName: string): InboxEntry {
  const formatVersion = readableVersion(item, tableName);
  const { pk, consumer, key, messageId, status, payloadHash, processedAt } = item;
  const expiresAt = toNumber(item.expiresAt);
  if (
    formatVersion === undefined ||
    typeof pk !== 'string' ||
    typeof payloadHash !== 'string' ||
    !Number.isFinite(expiresAt) ||
    !(Object.values(InboxStatus) as unknown[]).includes(status)
  ) {
    throw new InboxError(
      `An item in ${tableName} is not an sqs-inbox entry (needs string pk and payloadHash, ` +
        `numeric expiresAt, status one of ${Object.values(InboxStatus).join(', ')}, ` +
        'formatVersion absent or a whole number from 1); give the inbox its own table.',
    );
  }
  return {
    pk,
    consumer: String(consumer),
    key: String(key),
    messageId: String(messageId),
    status: status as InboxStatus,
    payloadHash,
    ...(processedAt === undefined ? {} : { processedAt: String(processedAt) }),
    expiresAt,
    formatVersion,
    ...leaseFields(item),
  };
}

/**
 * The entry's format version when this release reads it; undefined when it is no version.
 * The entry's key is not named: it is message content.
 */
function readableVersion(item: Record<string, unknown>, tableName: string): number | undefined {
  const version = formatVersionOf(item[ITEM_ATTRIBUTES['#formatVersion']]);
  if (version === undefined || version <= FORMAT_VERSIONS.inboxEntry) return version;
  throw new FormatVersionError('inboxEntry', version, {
    what: `An inbox entry in ${tableName}`,
    fix: 'Upgrade sqs-inbox in every function that uses this inbox table; the message is retried meanwhile, and the entry is left as it is.',
  });
}

function leaseFields(item: Record<string, unknown>): Partial<InboxEntry> {
  const fields: { -readonly [K in keyof InboxEntry]?: InboxEntry[K] } = {};
  if (item.attempts !== undefined) fields.attempts = toNumber(item.attempts);
  if (item.leaseUntil !== undefined) fields.leaseUntilMillis = toNumber(item.leaseUntil);
  if (item.leaseEpoch !== undefined) fields.leaseEpoch = toNumber(item.leaseEpoch);
  const lastError = item.lastError as { name?: unknown; at?: unknown } | undefined;
  if (lastError !== undefined) {
    fields.lastError = { name: String(lastError.name), at: String(lastError.at) };
  }
  if (Array.isArray(item.published)) fields.published = item.published.map(toPublished);
  if (item.steps !== undefined) {
    fields.steps = Object.fromEntries(
      Object.entries(toJournal(item)).map(([name, step]) => [name, { at: step.at }]),
    );
  }
  return fields;
}

function toPublished(value: unknown): NonNullable<InboxEntry['published']>[number] {
  const { id, destination, groupId } = (value ?? {}) as Record<string, unknown>;
  return {
    id: String(id),
    destination: String(destination),
    ...(groupId === undefined ? {} : { groupId: String(groupId) }),
  };
}

/**
 * The journal of an inbox item: its steps by name.
 *
 * @example
 * ```ts
 * toJournal({ steps: { charge: { result: '{}', at: '2026-11-24T10:00:00.000Z' } } })
 * ```
 */
export function toJournal(item: Record<string, unknown>): Record<string, JournaledStep> {
  const steps = (item.steps ?? {}) as Record<string, { result?: unknown; at?: unknown }>;
  return Object.fromEntries(
    Object.entries(steps).map(([name, step]) => [
      name,
      {
        ...(typeof step.result === 'string' ? { result: step.result } : {}),
        at: String(step.at),
      },
    ]),
  );
}

/**
 * The lease an inbox item records, if it has an owner.
 *
 * @example
 * ```ts
 * leaseOf({ leaseOwner: 'a1', leaseEpoch: 2 }) // => { owner: 'a1', epoch: 2 }
 * ```
 */
export function leaseOf(item: Record<string, unknown>): LeaseToken | undefined {
  const owner = item[ITEM_ATTRIBUTES['#owner']];
  if (typeof owner !== 'string') return undefined;
  return { owner, epoch: toNumber(item[ITEM_ATTRIBUTES['#epoch']]) };
}

/** A number attribute as a number: a caller's document client may wrap numbers (wrapNumbers). */
function toNumber(value: unknown): number {
  return Number(
    typeof value === 'object' && value !== null && 'value' in value ? value.value : value,
  );
}

/**
 * The claim's answer from the entry it wrote (or found already written by this attempt).
 *
 * @example
 * ```ts
 * const result = claimedFrom(Attributes);
 * ```
 */
export function claimedFrom(item: Record<string, unknown>): ClaimResult {
  const lease = leaseOf(item);
  if (lease === undefined)
    throw new TransientStoreError(TransientReason.TransactionConflict, undefined);
  const leaseUntil = item[ITEM_ATTRIBUTES['#leaseUntil']];
  const claimedFromOwner = item[ITEM_ATTRIBUTES['#claimedFrom']];
  return {
    claimed: true,
    lease,
    attempts: toNumber(item.attempts),
    journal: toJournal(item),
    // The owner the claim found, or its own token when it found none (a new or released entry).
    takenOver: claimedFromOwner !== undefined && claimedFromOwner !== lease.owner,
    ...(leaseUntil === undefined ? {} : { leaseUntilMillis: toNumber(leaseUntil) }),
  };
}
