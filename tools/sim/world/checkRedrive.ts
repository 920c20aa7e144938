import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { OPERATION_ITEM_PREFIX } from '../../../src/constants/values.js';
import type { ChangeRecord } from '../../../src/testing/dynamo/ChangeLog.js';
import { checkRedriveDecisions } from './checkRedriveDecisions.js';
import { WorldTables } from './consumerFunction.js';
import type { WorldEvents } from './WorldEvents.js';
import type { WorldObservation } from './WorldObservation.js';

/**
 * The inbox-aware redrive never sends back a message whose key had committed before the send:
 * no commit is made by one of its copies for a key an earlier commit (live then or expired)
 * already applied. (A console-like redrive may, past the TTL: that is what the inbox-aware one
 * is for.) Each copy it sent back is judged too (see `checkRedriveDecisions`).
 *
 * @example
 * ```ts
 * checkRedrive(world, events, failures);
 * ```
 */
export function checkRedrive(
  world: WorldObservation,
  events: WorldEvents,
  failures: string[],
): void {
  for (const error of world.redriveErrors) failures.push(`redrive: ${error}`);
  checkRedriveLock(world, failures);
  checkRedriveDecisions(world, events, failures);
  if (world.redriveSends.length === 0) return;
  const sentAt = new Map(world.redriveSends.map((send) => [send.messageId, send.sentAtMillis]));
  const commits = new Map<string, number[]>();
  world.dynamo.changes.forEach((change, index) => {
    if (index < world.changesBefore || change.tableName !== WorldTables.Inbox) return;
    const entry = change.newImage;
    if (!isNewCommit(entry, change.oldImage)) return;
    const key = entry?.key?.S ?? '';
    const atMillis = world.changeMillis[change.sequence - 1] ?? 0;
    const sent = sentAt.get(entry?.messageId?.S ?? '');
    const earlier = (commits.get(key) ?? []).filter(
      (millis) => sent !== undefined && millis < sent,
    );
    if (sent !== undefined && earlier.length > 0) {
      failures.push(
        `redrive: ${entry?.messageId?.S}, sent back at ${sent} ms, committed key ${key} again (change ${change.sequence}); it had committed at ${earlier[0]} ms, before the send`,
      );
    }
    commits.set(key, [...(commits.get(key) ?? []), atMillis]);
  });
}

/**
 * One run at a time acts on the DLQ: every send and delete of a run happens while the DLQ's lock
 * item names that run, under a lease that has not lapsed. (Two runs' actions then never
 * interleave, and a run that stalled past its lease acts no more once another run took over.)
 */
function checkRedriveLock(world: WorldObservation, failures: string[]): void {
  for (const action of world.redriveActions) {
    const { operationId, lockOwner, lockUntilMillis, atMillis } = action;
    if (lockOwner === operationId && lockUntilMillis !== undefined && lockUntilMillis > atMillis)
      continue;
    const lock =
      lockOwner === undefined
        ? 'no run held the lock'
        : `the lock was ${lockOwner}'s until ${lockUntilMillis} ms`;
    failures.push(
      `redrive: ${operationId} made a ${action.action} at ${atMillis} ms while ${lock}`,
    );
  }
}

/**
 * An operator's item in the inbox table (`#ops#…`, the redrive's lock): no entry, since a
 * leading `#` is no entry's key.
 *
 * @example
 * ```ts
 * const entries = changes.filter((change) => !isOperationItem(change));
 * ```
 */
export function isOperationItem(change: ChangeRecord): boolean {
  return (
    change.tableName === WorldTables.Inbox &&
    (change.keys.pk?.S ?? '').startsWith(OPERATION_ITEM_PREFIX)
  );
}

function isNewCommit(
  entry: Record<string, AttributeValue> | undefined,
  old: Record<string, AttributeValue> | undefined,
): boolean {
  if (entry?.status?.S !== 'COMPLETED') return false;
  return old?.status?.S !== 'COMPLETED' || old.processedAt?.S !== entry.processedAt?.S;
}
