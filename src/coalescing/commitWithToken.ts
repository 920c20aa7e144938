import { TransientReason } from '../constants/values.js';
import type { MemberVerdict, PreparedCommit } from '../core/InboxStore.js';
import { backoffMillis } from '../core/retryTransient.js';
import { TransientStoreError } from '../errors.js';
import type { InboxRuntime } from '../runtime/InboxRuntime.js';
import type { CoalescingStore } from './CoalescerSettings.js';
import { clientRequestToken } from './clientRequestToken.js';

/** Reasons after which a transaction may have been applied: sent again with its token. */
const OUTCOME_UNKNOWN: ReadonlySet<TransientReason> = new Set([
  TransientReason.Timeout,
  TransientReason.ServerError,
]);

/**
 * Commits `members` in one transaction, sent again with the same `ClientRequestToken` (which
 * DynamoDB applies at most once) while its outcome is unknown (a timeout, a 5xx), up to
 * `attempts` sends; `send` wraps each send (the coalescer times it). Throws the last error
 * otherwise.
 *
 * @example
 * ```ts
 * const verdicts = await commitWithToken(store, prepared, { runtime, attempts: 3 }, (send) => send());
 * ```
 */
export async function commitWithToken(
  store: CoalescingStore,
  members: readonly PreparedCommit[],
  settings: { readonly runtime: Pick<InboxRuntime, 'sleep' | 'random'>; readonly attempts: number },
  send: (request: () => Promise<MemberVerdict[]>) => Promise<MemberVerdict[]>,
): Promise<MemberVerdict[]> {
  const { runtime, attempts } = settings;
  const token = clientRequestToken(runtime.random);
  for (let attempt = 1; ; attempt++) {
    try {
      return await send(() => store.commitTogether(members, token));
    } catch (error) {
      const unknown = error instanceof TransientStoreError && OUTCOME_UNKNOWN.has(error.reason);
      if (!unknown || attempt >= attempts) throw error;
      await runtime.sleep(backoffMillis(attempt, runtime.random()));
    }
  }
}
