import type { MemberVerdict } from '../core/InboxStore.js';
import { reportedConflict } from '../core/retryTransient.js';

/**
 * The members per transaction after a transaction of `members` answered `verdicts`. A
 * cancelled shared transaction cost each of its innocent members a round trip; under
 * contention (copies racing between invocations) smaller transactions lose less, so the next
 * ones take half as many members, and twice as many again after one commits (a transaction of
 * one member too, or the size would stay at one). A cancellation by conflicts alone changes
 * nothing: a conflict on an item they share costs all of them alike, however many they are.
 * With `sameItemOnly` it never changes: the members of a shared transaction there share an
 * item, so smaller transactions would only take turns on it.
 *
 * @example
 * ```ts
 * nextMaxMembers(Infinity, 4, verdicts, false); // => 2 when one member's own reason cancelled it
 * ```
 */
export function nextMaxMembers(
  current: number,
  members: number,
  verdicts: readonly MemberVerdict[],
  sameItemOnly: boolean,
): number {
  if (sameItemOnly) return current;
  const applied = verdicts.every((verdict) => 'result' in verdict && verdict.result.committed);
  if (applied) return current * 2;
  const conflictOnly = verdicts.every(
    (verdict) => 'innocent' in verdict || ('error' in verdict && reportedConflict(verdict.error)),
  );
  if (conflictOnly) return current;
  return Math.max(1, Math.min(current, Math.floor(members / 2)));
}
