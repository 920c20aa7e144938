import type { QueuedMessage } from '../sqs/SimQueue.js';
import type { EventCommits } from './WorldEvents.js';
import type { EventOf, WorldObservation } from './WorldObservation.js';

/**
 * A message is deleted from the queue only once it is settled: every record an invocation
 * acknowledged (it answered and did not report the record failed) carries an event whose entry
 * DynamoDB had committed when the invocation answered — by this message or by any copy — or
 * was dead-lettered by the library before the answer (by this invocation, or by an earlier one
 * whose copy in the DLQ this delivery found). A copy acknowledged as the duplicate of a
 * commit that never happened (its original's transaction cancelled, or not yet answered) would
 * be deleted while its event still depends on the original's next delivery.
 *
 * @example
 * ```ts
 * checkAcknowledged(world, committed, eventOf, failures);
 * ```
 */
export function checkAcknowledged(
  world: WorldObservation,
  committed: EventCommits,
  eventOf: EventOf,
  failures: string[],
): void {
  const sent = new Map(world.queue.history.map((message) => [message.messageId, message]));
  for (const invocation of world.invocations) {
    if (invocation.end !== 'response' || invocation.endedMillis === undefined) continue;
    const failed = new Set(invocation.failedMessageIds);
    for (const id of invocation.messageIds) {
      const message = sent.get(id);
      if (failed.has(id) || message === undefined) continue;
      const event = eventOf(message.body);
      if (event === undefined) continue;
      const firstCommit = committed.byEvent.get(event)?.[0];
      const commitMillis =
        firstCommit === undefined ? undefined : world.changeMillis[firstCommit.sequence - 1];
      if (commitMillis !== undefined && commitMillis <= invocation.endedMillis) continue;
      if (deadLetteredBy(world, invocation.endedMillis, id)) continue;
      failures.push(
        `acknowledged: invocation ${invocation.id} acknowledged ${id} (${event.eventId}) at ${invocation.endedMillis} ms, ${commitMillis === undefined ? 'its event never committed' : `its event committed only at ${commitMillis} ms`} and the message was not dead-lettered`,
      );
    }
  }
}

/**
 * Whether the library sent the message to the DLQ by then: this invocation, or an earlier one
 * whose dead-lettered copy this delivery found (the redelivery is acknowledged, not sent twice).
 */
function deadLetteredBy(world: WorldObservation, millis: number, id: string): boolean {
  return world.deadLetterQueue.history.some(
    (message: QueuedMessage) =>
      message.sentBy !== undefined &&
      (message.attributes?.['inbox.originalMessageId']?.StringValue ?? message.messageId) === id &&
      (message.requestedAtMillis ?? message.sentAtMillis) <= millis,
  );
}
