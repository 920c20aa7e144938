import type { ChangeRecord } from '../../../src/testing/dynamo/SimDynamoDB.js';
import { WorldTables } from './consumerFunction.js';
import type { PlannedEvent } from './paymentWorkload.js';
import type { WorldEvents } from './WorldEvents.js';
import type { RedriveAction, WorldObservation } from './WorldObservation.js';

/**
 * What the inbox-aware redrive sends back, judged one copy at a time (each failure one line):
 * - FIFO: a copy is sent only when no earlier message of its group is still in the DLQ, so a
 *   group's copies go back in its DLQ order and none past a message the run kept or did not
 *   select;
 * - nothing goes back from a run told its consumer keys by the SQS message id;
 * - no copy goes back whose key's entry, when the run read it, held another payload: a commit,
 *   or an unfinished attempt's journal (the consumer would refuse the copy, or take its key);
 * - a run holds what it received until it deletes or releases it: none of it is received again
 *   (its hold lapsed), and the run decides each message once.
 *
 * @example
 * ```ts
 * checkRedriveDecisions(world, new WorldEvents(world.workload.events), failures);
 * ```
 */
export function checkRedriveDecisions(
  world: WorldObservation,
  events: WorldEvents,
  failures: string[],
): void {
  for (const send of world.redriveActions.filter((action) => action.action === 'send')) {
    const what = `redrive: ${send.operationId} sent back a copy of ${send.dlqMessageId}`;
    if (send.groupAhead !== undefined && send.groupAhead.length > 0) {
      failures.push(
        `${what} past ${send.groupAhead.join(', ')} of its FIFO group, still in the DLQ ahead of it`,
      );
    }
    if (world.config.redriveKeyIsMessageId) {
      failures.push(`${what}, though told its consumer keys by the SQS message id`);
    }
    const held = otherPayloadHeld(world, events, send);
    if (held !== undefined) failures.push(`${what}, though its key's entry ${held}`);
  }
  checkHeldOnce(world, failures);
}

/**
 * How the entry of a sent copy's key, as the run read it, bound the key to another payload
 * (live, and committed or holding a journal); undefined when it did not.
 */
function otherPayloadHeld(
  world: WorldObservation,
  events: WorldEvents,
  send: RedriveAction,
): string | undefined {
  const message = world.deadLetterQueue.history.find((m) => m.messageId === send.dlqMessageId);
  const event = message === undefined ? undefined : events.ofBody(message.body);
  if (event === undefined || send.entryRead === undefined) return undefined;
  const change = lastEntryChange(world, event, send.entryRead.changes);
  const entry = change?.newImage;
  if (change === undefined || entry === undefined) return undefined;
  const live = Number(entry.expiresAt?.N ?? 0) >= Math.floor(send.entryRead.atMillis / 1000);
  const binds = entry.status?.S === 'COMPLETED' || entry.steps !== undefined;
  if (!live || !binds || events.ofCommit(change) === event) return undefined;
  const held = entry.status?.S === 'COMPLETED' ? 'commit' : 'journal';
  return `held another payload's ${held} when the run read it (change ${change.sequence}, ${entry.status?.S})`;
}

/** The last change of an event's key's entry among the first `before` changes of the log. */
function lastEntryChange(
  world: WorldObservation,
  event: PlannedEvent,
  before: number,
): ChangeRecord | undefined {
  const changes = world.dynamo.changes.slice(world.changesBefore, before);
  return changes.findLast(
    (change) =>
      change.tableName === WorldTables.Inbox &&
      (change.newImage ?? change.oldImage)?.key?.S === event.eventId,
  );
}

/** A run's holds last while it runs: nothing it holds comes round again, nothing is decided twice. */
function checkHeldOnce(world: WorldObservation, failures: string[]): void {
  for (const again of world.redriveReceivedAgain) {
    failures.push(
      `redrive: ${again.operationId} received ${again.dlqMessageId} again at ${again.atMillis} ms, while it held it since ${again.heldSinceMillis} ms: its hold lapsed`,
    );
  }
  const decided = new Set<string>();
  for (const { operationId, dlqMessageId } of world.redriveOutcomes) {
    const id = `${operationId} ${dlqMessageId}`;
    if (decided.has(id)) failures.push(`redrive: ${operationId} decided ${dlqMessageId} twice`);
    decided.add(id);
  }
}
