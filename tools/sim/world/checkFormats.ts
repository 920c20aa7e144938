import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { FORMAT_VERSIONS } from '../../../src/constants/index.js';
import type { ChangeRecord } from '../../../src/testing/dynamo/ChangeLog.js';
import { isOperationItem } from './checkRedrive.js';
import { WorldTables } from './consumerFunction.js';
import type { WorldObservation } from './WorldObservation.js';

/** The format version each table's items are of, as this release writes them. */
const WRITTEN = new Map<string, string>([
  [WorldTables.Inbox, String(FORMAT_VERSIONS.inboxEntry)],
  [WorldTables.Outbox, String(FORMAT_VERSIONS.outboxItem)],
]);

/**
 * The stored-formats invariant: every inbox entry and outbox item a container of the current
 * release writes holds the format version it writes (a claim, a commit, a journal write, a
 * heartbeat, a release, an outbox Put or group Update alike: a reader of a later version tells
 * this release's items by it); a container of the previous release (`previousReleaseShare`)
 * never stamps one the item did not hold. That every reader reads the previous format is
 * what the other invariants judge in those worlds: a message whose entry or outbox item the
 * previous release wrote must still be a duplicate, resumed, relayed, never lost.
 *
 * @example
 * ```ts
 * checkFormats(world, failures);
 * ```
 */
export function checkFormats(world: WorldObservation, failures: string[]): void {
  const actors = new Map(world.invocations.map(({ id, actor }) => [id, actor]));
  for (const change of world.dynamo.changes.slice(world.changesBefore)) {
    const written = WRITTEN.get(change.tableName);
    const image = change.newImage;
    const invocation = world.changeInvocations[change.sequence - 1];
    if (written === undefined || image === undefined || invocation === undefined) continue;
    if (isOperationItem(change)) continue;
    const actor = actors.get(invocation) ?? '?';
    const version = versionOf(image);
    if (world.previousReleaseActors.has(actor)) {
      if (version === undefined || version === versionOf(change.oldImage)) continue;
      failures.push(
        `formats: ${describe(change)} holds formatVersion ${version} after a write of ${actor}, which runs the previous release and stamps none`,
      );
    } else if (version !== written) {
      failures.push(
        `formats: ${describe(change)} holds formatVersion ${version ?? '(none)'} after a write of ${actor}, which writes version ${written}`,
      );
    }
  }
}

function versionOf(image: Record<string, AttributeValue> | undefined): string | undefined {
  return image?.formatVersion?.N;
}

function describe(change: ChangeRecord): string {
  const what = change.tableName === WorldTables.Inbox ? 'inbox entry' : 'outbox item';
  return `${what} ${change.keys.pk?.S ?? '?'} (change ${change.sequence})`;
}
