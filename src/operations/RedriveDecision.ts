import { InboxStatus } from '../constants/values.js';
import {
  bindsOtherPayload,
  holdsPayload,
  type InboxEntry,
  isLive,
  toEpochSeconds,
} from '../core/inboxEntry.js';

/**
 * What the inbox-aware redrive decides for one DLQ message. Only `already-applied` (deleted,
 * never sent) and `retry` (sent back to its source queue, then deleted) act; every other
 * decision keeps the message in the DLQ, visible again when the run ends.
 *
 * @example
 * ```ts
 * if (result.decision === RedriveDecision.Retry) console.log('sent back', result.newMessageId);
 * ```
 */
export const RedriveDecision = {
  /** Its key committed with this payload: the effect happened, the copy is deleted. */
  AlreadyApplied: 'already-applied',
  /**
   * Its key committed with another payload, or another payload's unfinished attempt holds a
   * journal under it: a reused key, for a person to judge.
   */
  Conflict: 'conflict',
  /** Another attempt holds the entry's lease: run again once it ends. */
  InFlight: 'in-flight',
  /** Not committed, and an absent commit is proven: sent back to its source queue. */
  Retry: 'retry',
  /**
   * Not committed, but its consumer keys by the SQS message id, which a copy sent back does not
   * keep: the copy would be keyed anew and could apply twice. Kept: declare a key.
   */
  MessageIdKey: 'message-id-key',
  /** Older than the inbox's TTL could vouch for: a commit may have expired (`--accept-stale`). */
  Stale: 'stale',
  /** Dead-lettered by a permanent error; kept unless `--include-permanent` (the fix deployed). */
  Permanent: 'permanent',
  /** No key could be recovered (a key computed in the handler, a FIFO message-id key). */
  UnknownKey: 'unknown-key',
  /** The recovered key does not hash to the copy's `inbox.keyHash`: another reader's key. */
  KeyMismatch: 'key-mismatch',
  /** No source queue recorded, and none given (`--to`). */
  NoSource: 'no-source',
  /** A FIFO message after a kept one of its group: order holds it back too. */
  BehindKept: 'behind-kept',
  /** Outside the run's selection (`--reason`, `--since`, `--until`, `--limit`). */
  NotSelected: 'not-selected',
  /** Sending it back or deleting it failed: kept, with the error's name. */
  Error: 'error',
} as const;
/** One of the values of {@link RedriveDecision}. */
export type RedriveDecision = (typeof RedriveDecision)[keyof typeof RedriveDecision];

/** Clock skew and the time between a decision and the consumer's read, covered by the proof. */
export const STALE_MARGIN_MILLIS = 15 * 60_000;

/**
 * What decides a message that has a key: its entry (read consistently), its payload's hashes,
 * and the earliest time it could have committed, which bounds how long an absent entry proves
 * anything.
 *
 * @example
 * ```ts
 * const facts: RedriveFacts = { entry, hashes, nowMillis, earliestCommitMillis, ttlSeconds, permanent: false };
 * ```
 */
export interface RedriveFacts {
  readonly entry: InboxEntry | undefined;
  readonly hashes: { readonly payloadHash: string; readonly bodyHash: string };
  readonly nowMillis: number;
  /** Epoch milliseconds: no commit of this message can be older (see `earliestCommitMillis`). */
  readonly earliestCommitMillis: number;
  /** The consumer's `ttlSeconds`: how long a commit stays visible. */
  readonly ttlSeconds: number;
  /** Whether `inbox.error` names a permanent error. */
  readonly permanent: boolean;
  readonly includePermanent?: boolean;
  readonly acceptStale?: boolean;
  /** The consumer keys by the SQS message id: a copy sent back would be keyed anew. */
  readonly messageIdKey?: boolean;
}

/**
 * The decision table of the inbox-aware redrive. A `COMPLETED` entry, live or expired but still
 * stored, proves the commit: the same payload is `already-applied`, another a `conflict`. A
 * live lease is `in-flight`; a live `FAILED` entry or lapsed lease with another payload's
 * journal is a `conflict` too (the consumer never takes such a journal over). Anything else (absent, `FAILED`, a lapsed lease) proves "not
 * committed" only while every commit this message could have made would still be visible: a
 * commit is never older than `earliestCommitMillis` and lives `ttlSeconds`, so past that
 * horizon (less a margin) the message is `stale`, kept unless the operator accepts the risk.
 * A consumer keyed by the SQS message id never gets a message back (`message-id-key`): the copy
 * would carry a new id, so neither a commit it made nor a rerun's second copy is found.
 *
 * @example
 * ```ts
 * decideRedrive({ entry: undefined, hashes, nowMillis, earliestCommitMillis: nowMillis - 60_000, ttlSeconds: 86_400, permanent: false });
 * // => 'retry'
 * ```
 */
export function decideRedrive(facts: RedriveFacts): RedriveDecision {
  if (facts.permanent && facts.includePermanent !== true) return RedriveDecision.Permanent;
  const { entry, nowMillis } = facts;
  if (entry?.status === InboxStatus.Completed) {
    return holdsPayload(entry, facts.hashes)
      ? RedriveDecision.AlreadyApplied
      : RedriveDecision.Conflict;
  }
  const live = entry !== undefined && isLive(entry, toEpochSeconds(nowMillis));
  if (
    live &&
    entry.status === InboxStatus.InProgress &&
    (entry.leaseUntilMillis ?? 0) >= nowMillis
  ) {
    return RedriveDecision.InFlight;
  }
  // A journal of another payload is never taken over (ENTRY_CONDITION.resumable): a copy sent
  // back would only be refused, and dead-lettered again.
  if (entry !== undefined && bindsOtherPayload(entry, facts.hashes, nowMillis)) {
    return RedriveDecision.Conflict;
  }
  if (facts.messageIdKey === true) return RedriveDecision.MessageIdKey;
  const horizonMillis = facts.earliestCommitMillis + facts.ttlSeconds * 1000 - STALE_MARGIN_MILLIS;
  if (nowMillis >= horizonMillis && facts.acceptStale !== true) return RedriveDecision.Stale;
  return RedriveDecision.Retry;
}
