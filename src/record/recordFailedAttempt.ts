import { inboxPk, toEpochSeconds } from '../core/inboxEntry.js';
import { loggedKey } from '../core/loggedKey.js';
import type { ResolvedOptions } from '../core/resolveOptions.js';
import { loggableError, type MessageIdentity } from '../core/settleFailure.js';
import { recordedErrorName } from '../errors/errorText.js';
import {
  FormatVersionError,
  InboxTableSchemaError,
  LeaseHeldError,
  PayloadMismatchError,
} from '../errors.js';

/** What a failed record is, to record its attempt: its messageId, and its key once read. */
export interface FailedAttempt {
  readonly messageId: string;
  readonly identity: MessageIdentity | undefined;
  readonly error: unknown;
  /** Whether a step of the record asked for the lease: its release then tells its failure. */
  readonly leaseSought: boolean;
}

/**
 * Errors whose entry the write could never change (another attempt's lease, another payload's
 * binding entry, a newer format's) or could not reach (the wrong table): not sent at all.
 */
const ANSWERED_BY_THE_ENTRY: ReadonlyArray<abstract new (...args: never[]) => Error> = [
  LeaseHeldError,
  PayloadMismatchError,
  FormatVersionError,
  InboxTableSchemaError,
];

/**
 * Records a failed attempt of a record that ran no step on its inbox entry (`FAILED`, one more
 * attempt, the error's class name and time), so that what happened to the message can be read
 * for every consumer, not only those with steps. Only on the failure path, once the record's
 * key is known; the caller sends none once the batch answered at its deadline (the batch does
 * not wait for it then). Never throws and never changes the record's outcome: a refused condition (the entry
 * is committed, leased, or another's) is logged at DEBUG, any other failure once at WARN.
 *
 * @example
 * ```ts
 * await recordFailedAttempt({ messageId, identity, error, leaseSought: false }, options);
 * ```
 */
export async function recordFailedAttempt(
  failed: FailedAttempt,
  options: ResolvedOptions,
): Promise<void> {
  const { identity, error, messageId } = failed;
  const { store } = options;
  if (identity === undefined || failed.leaseSought || store.recordFailure === undefined) return;
  if (ANSWERED_BY_THE_ENTRY.some((type) => error instanceof type)) return;
  const [payloadHash = '', ...otherHashes] = identity.payloadHashes;
  const nowMillis = options.runtime.now();
  const context = {
    consumer: options.consumer,
    ...loggedKey(identity.key, options.logKeys),
    messageId,
  };
  try {
    const { recorded } = await store.recordFailure({
      entry: {
        pk: inboxPk(options.consumer, identity.key),
        consumer: options.consumer,
        key: identity.key,
        messageId,
        payloadHash,
        expiresAt: toEpochSeconds(nowMillis) + options.ttlSeconds,
      },
      payloadHashes: [payloadHash, ...otherHashes],
      lastError: { name: recordedErrorName(error), at: new Date(nowMillis).toISOString() },
      nowMillis,
    });
    if (!recorded) {
      options.logger.debug(
        "failed attempt not recorded: its entry is committed, leased, expired or another payload's",
        context,
      );
    }
  } catch (writeError) {
    options.logger.warn(
      "failed attempt not recorded on its inbox entry; the record's outcome is unchanged",
      { ...context, writeError: loggableError(writeError) },
    );
  }
}
