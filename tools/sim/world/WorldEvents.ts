import { createHash } from 'node:crypto';
import type { ChangeRecord } from '../../../src/testing/dynamo/SimDynamoDB.js';
import { WorldTables } from './consumerFunction.js';
import type { PlannedEvent } from './paymentWorkload.js';
import { publishedText } from './snsEnvelope.js';

/**
 * The planned events of a world, found by what the oracle sees of them: a record's body (in an
 * SNS envelope or as is), or an inbox entry (its key and payload hash: two events may share an
 * id, never a body).
 *
 * @example
 * ```ts
 * const events = new WorldEvents(workload.events);
 * const event = events.ofBody(message.body);
 * ```
 */
export class WorldEvents {
  readonly #byBody: Map<string, PlannedEvent>;
  readonly #byEntry: Map<string, PlannedEvent>;

  constructor(events: readonly PlannedEvent[]) {
    this.#byBody = new Map(events.map((event) => [event.body, event]));
    this.#byEntry = new Map(
      events.map((event) => [entryId(event.eventId, sha256(event.body)), event]),
    );
  }

  /** The event a record's body carries. */
  ofBody(body: string): PlannedEvent | undefined {
    return this.#byBody.get(publishedText(body));
  }

  /** The event an inbox entry write committed: its key and the hash of its payload. */
  ofCommit(change: ChangeRecord): PlannedEvent | undefined {
    const entry = change.newImage;
    return this.#byEntry.get(entryId(entry?.key?.S ?? '', entry?.payloadHash?.S ?? ''));
  }

  /**
   * Each event's commits (inbox entry writes, in order), and the events each transaction
   * committed (several when commits are coalesced); a commit of no event's key and body is a
   * failure.
   */
  commits(
    changes: readonly ChangeRecord[],
    failures: string[],
  ): {
    readonly byEvent: ReadonlyMap<PlannedEvent, readonly ChangeRecord[]>;
    readonly byTransaction: ReadonlyMap<string | undefined, readonly PlannedEvent[]>;
  } {
    const byEvent = new Map<PlannedEvent, ChangeRecord[]>();
    const byTransaction = new Map<string | undefined, PlannedEvent[]>();
    for (const change of changes) {
      // Only a completed entry is a commit; a step's lease writes are not.
      if (change.tableName !== WorldTables.Inbox || change.newImage?.status?.S !== 'COMPLETED') {
        continue;
      }
      const event = this.ofCommit(change);
      if (event === undefined) {
        failures.push(
          `effects: key ${change.newImage.key?.S} committed (change ${change.sequence}) with a payload no event has`,
        );
        continue;
      }
      byEvent.set(event, [...(byEvent.get(event) ?? []), change]);
      byTransaction.set(change.transactionId, [
        ...(byTransaction.get(change.transactionId) ?? []),
        event,
      ]);
    }
    return { byEvent, byTransaction };
  }
}

/**
 * An event's commits, by event.
 *
 * @example
 * ```ts
 * const first = committed.byEvent.get(event)?.[0];
 * ```
 */
export type EventCommits = ReturnType<WorldEvents['commits']>;

function entryId(key: string, payloadHash: string): string {
  return `${key}\n${payloadHash}`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
