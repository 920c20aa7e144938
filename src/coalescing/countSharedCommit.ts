import { InboxMetric } from '../constants/values.js';
import type { MemberVerdict, PreparedCommit } from '../core/InboxStore.js';
import type { InboxMetrics } from '../core/types.js';
import { countMergedUpdates } from './planTransactions.js';

/**
 * Counts a shared transaction that applied: one transaction, its members' commits, and the
 * items it wrote once for several members with the members' updates merged into them. A
 * transaction some member of which did not commit counts nothing.
 *
 * @example
 * ```ts
 * countSharedCommit(metrics, members.map((member) => member.prepared), verdicts);
 * ```
 */
export function countSharedCommit(
  metrics: InboxMetrics | undefined,
  members: readonly PreparedCommit[],
  verdicts: readonly MemberVerdict[],
): void {
  const committed = verdicts.filter((verdict) => 'result' in verdict && verdict.result.committed);
  if (metrics === undefined || committed.length !== verdicts.length) return;
  metrics.addMetric(InboxMetric.SharedTransactions, 'Count', 1);
  metrics.addMetric(InboxMetric.SharedCommits, 'Count', committed.length);
  const merged = countMergedUpdates(members);
  if (merged.items === 0) return;
  metrics.addMetric(InboxMetric.AggregatedItems, 'Count', merged.items);
  metrics.addMetric(InboxMetric.AggregatedUpdates, 'Count', merged.updates);
}
