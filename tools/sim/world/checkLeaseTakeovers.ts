import { InboxMetric } from '../../../src/constants/index.js';
import type { ChangeRecord } from '../../../src/testing/dynamo/SimDynamoDB.js';
import type { Invocation } from '../lambda/SimLambda.js';
import { WorldTables } from './consumerFunction.js';
import type { WorldObservation } from './WorldObservation.js';

/**
 * The lease-takeover count: each consumer container reports `InboxLeaseTakeovers` exactly as
 * often as its claims took over an `IN_PROGRESS` entry another attempt held (the entry in
 * progress before and after, under another owner). A claim whose answer may never have reached
 * its attempt (a fault struck an update of that key, the invocation was killed or timed out, or
 * its batch answered at the deadline) may go uncounted, so the count may fall short by those; it never exceeds the takeovers made.
 *
 * @example
 * ```ts
 * checkLeaseTakeovers(world, changes, failures);
 * ```
 */
export function checkLeaseTakeovers(
  world: WorldObservation,
  changes: readonly ChangeRecord[],
  failures: string[],
): void {
  const invocations = new Map(world.invocations.map((invocation) => [invocation.id, invocation]));
  const made = new Map<string, { all: number; answered: number }>();
  for (const change of changes) {
    const invocation = invocations.get(world.changeInvocations[change.sequence - 1] ?? -1);
    if (invocation === undefined || !isTakeover(change)) continue;
    const counts = made.get(invocation.actor) ?? { all: 0, answered: 0 };
    counts.all += 1;
    if (surelyAnswered(invocation, change)) counts.answered += 1;
    made.set(invocation.actor, counts);
  }
  const reported = new Map<string, number>();
  for (const { actor, name, value } of world.metrics) {
    if (name === InboxMetric.LeaseTakeovers)
      reported.set(actor, (reported.get(actor) ?? 0) + value);
  }
  for (const actor of new Set([...made.keys(), ...reported.keys()])) {
    const { all, answered } = made.get(actor) ?? { all: 0, answered: 0 };
    const counted = reported.get(actor) ?? 0;
    if (counted > all || counted < answered) {
      failures.push(
        `metrics: ${actor} counted ${counted} lease takeover(s) in ${InboxMetric.LeaseTakeovers}, but its claims took over ${all} (${answered} of them surely answered)`,
      );
    }
  }
}

/**
 * The claim's attempt surely learned its answer: its invocation answered with every record
 * settled (not at its deadline, after which a record's work may never resume), and no update
 * of the key faulted.
 */
function surelyAnswered(invocation: Invocation, change: ChangeRecord): boolean {
  if (invocation.end !== 'response' || invocation.deadlineMillis !== undefined) return false;
  const pk = change.keys.pk?.S ?? '';
  const key = pk.slice(pk.indexOf('#') + 1);
  return !invocation.faultedRequests.some(
    (request) => request.operation === 'UpdateItem' && request.subjects.includes(key),
  );
}
/** A claim of an entry in progress under another owner's lease. */
function isTakeover(change: ChangeRecord): boolean {
  if (change.tableName !== WorldTables.Inbox) return false;
  const { oldImage, newImage } = change;
  return (
    oldImage?.status?.S === 'IN_PROGRESS' &&
    newImage?.status?.S === 'IN_PROGRESS' &&
    oldImage.leaseOwner?.S !== newImage.leaseOwner?.S
  );
}
