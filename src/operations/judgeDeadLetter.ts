import type { SQSRecord } from 'aws-lambda';
import { DeadLetterAttribute } from '../constants/values.js';
import { inboxPk } from '../core/inboxEntry.js';
import { keyHash } from '../core/loggedKey.js';
import {
  attribute,
  deadLetterReason,
  earliestCommitMillis,
  isPermanentReason,
  NO_REASON_RECORDED,
  sentMillis,
  sourceQueueArnOf,
} from './deadLetterFacts.js';
import { decideRedrive, RedriveDecision } from './RedriveDecision.js';
import { type ConsumerReading, keysByMessageId, type RecoveredKey } from './recoverKey.js';

/**
 * What a redrive knows of one DLQ message before it acts: where it stands and why, with no
 * content (the key only by its hash, unless the operator asked for keys).
 *
 * @example
 * ```ts
 * console.log(`${verdict.dlqMessageId} ${verdict.decision} ${verdict.why ?? ''}`);
 * ```
 */
export interface DeadLetterVerdict {
  readonly dlqMessageId: string;
  readonly originalMessageId: string;
  /** `inbox.error`, or "no reason recorded" for a redrive-policy move. */
  readonly reason: string;
  readonly sourceQueueArn?: string;
  /** The FIFO message group: only with `showKey` (a group is often a customer's id). */
  readonly groupId?: string;
  /** ISO-8601 time SQS gives as the message's send time. */
  readonly sentAt: string;
  readonly receiveCount: number;
  readonly keyHash?: string;
  /** The plain key: only with `showKey`. */
  readonly key?: string;
  /** The entry's status when one was read (`absent` when none). */
  readonly entryStatus?: string;
  readonly decision: RedriveDecision;
  readonly why?: string;
}

/** A key declared now keys the messages to come; these were keyed by their ids, for a person. */
const MESSAGE_ID_KEY_WHY =
  'its consumer keys by the SQS message id, which a copy sent back does not keep, so a copy ' +
  'could apply twice: declare a key (MessageKey.field or MessageKey.attribute) for the messages ' +
  'to come; send this one back by hand once `sqs-inbox message` shows it unapplied';

/**
 * The settings a judgement needs beyond the message: the consumer's reading and TTL, the
 * operator's choices, and the clock.
 *
 * @example
 * ```ts
 * const context: JudgeContext = { reading, recover, ttlSeconds, fifo: false, nowMillis: Date.now() };
 * ```
 */
export interface JudgeContext {
  readonly reading: ConsumerReading;
  readonly recover: (record: SQSRecord) => Promise<RecoveredKey>;
  readonly ttlSeconds: number;
  readonly fifo: boolean;
  readonly nowMillis: number;
  readonly to?: string;
  /** How long a source queue keeps messages (bounds how old a copy's original can be). */
  readonly retentionSecondsOf?: (queueArn: string) => Promise<number | undefined>;
  readonly includePermanent?: boolean;
  readonly acceptStale?: boolean;
  readonly permanentErrors?: readonly string[];
  readonly showKey?: boolean;
}

/**
 * Judges one DLQ message: recovers its key, reads its entry consistently and applies the
 * decision table ({@link decideRedrive}); a message without a key or a source is kept.
 *
 * @example
 * ```ts
 * const verdict = await judgeDeadLetter(record, context);
 * ```
 */
export async function judgeDeadLetter(
  record: SQSRecord,
  context: JudgeContext,
): Promise<DeadLetterVerdict> {
  const base = describeDeadLetter(record, context);
  const recovered = await context.recover(record);
  if ('decision' in recovered) {
    const recordedHash = attribute(record, DeadLetterAttribute.KeyHash);
    return { ...base, ...(recordedHash ? { keyHash: recordedHash } : {}), ...recovered };
  }
  const keyed = {
    ...base,
    keyHash: keyHash(recovered.key),
    ...(context.showKey ? { key: recovered.key } : {}),
  };
  if (base.sourceQueueArn === undefined) {
    return {
      ...keyed,
      decision: RedriveDecision.NoSource,
      why: 'no source queue recorded: pass --to',
    };
  }
  const keepsOriginalTime = !context.fifo && base.reason === NO_REASON_RECORDED;
  const sourceRetentionSeconds = keepsOriginalTime
    ? undefined
    : await context.retentionSecondsOf?.(base.sourceQueueArn);
  const earliest = earliestCommitMillis(record, {
    fifo: context.fifo,
    ...(sourceRetentionSeconds === undefined ? {} : { sourceRetentionSeconds }),
  });
  const entry = await context.reading.store.find(inboxPk(context.reading.consumer, recovered.key));
  const decision = decideRedrive({
    entry,
    hashes: recovered.hashes,
    nowMillis: context.nowMillis,
    earliestCommitMillis: earliest,
    ttlSeconds: context.ttlSeconds,
    permanent: isPermanentReason(base.reason, context.permanentErrors),
    includePermanent: context.includePermanent ?? false,
    acceptStale: context.acceptStale ?? false,
    messageIdKey: keysByMessageId(context.reading),
  });
  const why = decision === RedriveDecision.MessageIdKey ? MESSAGE_ID_KEY_WHY : undefined;
  return { ...keyed, entryStatus: entry?.status ?? 'absent', decision, ...(why ? { why } : {}) };
}

/**
 * A DLQ message's facts that need no key: ids, reason, source (else `to`), send time,
 * receives, and its group with `showKey`.
 *
 * @example
 * ```ts
 * const { reason, sourceQueueArn } = describeDeadLetter(record);
 * ```
 */
export function describeDeadLetter(
  record: SQSRecord,
  shown: { readonly to?: string | undefined; readonly showKey?: boolean | undefined } = {},
): Omit<DeadLetterVerdict, 'decision'> {
  const source = sourceQueueArnOf(record) ?? shown.to;
  const groupId = shown.showKey ? record.attributes.MessageGroupId : undefined;
  return {
    dlqMessageId: record.messageId,
    originalMessageId: attribute(record, DeadLetterAttribute.OriginalMessageId) ?? record.messageId,
    reason: deadLetterReason(record),
    ...(source === undefined ? {} : { sourceQueueArn: source }),
    ...(groupId === undefined ? {} : { groupId }),
    sentAt: new Date(sentMillis(record)).toISOString(),
    receiveCount: Number(record.attributes.ApproximateReceiveCount),
  };
}
