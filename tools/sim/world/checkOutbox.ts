import type { DynamoDBRecord } from 'aws-lambda';
import { OutboxMessageIdField } from '../../../src/constants/index.js';
import type { ChangeRecord } from '../../../src/testing/dynamo/ChangeLog.js';
import type { QueuedMessage } from '../sqs/SimQueue.js';
import { WorldTables } from './consumerFunction.js';
import { DownstreamTables, type OutboxWorld } from './outboxWorld.js';
import type { EventCommits } from './WorldEvents.js';
import type { WorldObservation } from './WorldObservation.js';

/** A message a commit published, as the outbox holds it. */
interface Published {
  readonly id: string;
  readonly eventId: string;
  readonly accountId: string;
  readonly groupId: string | undefined;
  /** The outbox change that first held it. */
  readonly change: number;
}

/**
 * The outbox invariants of a world whose ledger publishes each credit (`config.outbox`):
 *
 * - each commit of a credit published its message in the same transaction, once, and nothing
 *   else did (the outbox changes only inside credits' transactions: `checkEffects`); its entry
 *   records the ids of exactly the messages that commit wrote (`published`), and no others;
 * - nothing lost between the hops: every published message was sent downstream, or
 *   dead-lettered by the relay because the destination refuses it (and only then), or named
 *   in a batch the stream's mapping gave up on while faults were on;
 * - exactly once downstream: every message sent is applied once by the downstream consumer
 *   (or dead-lettered there), and nothing unpublished is applied;
 * - FIFO (a FIFO downstream queue): each account's credits are applied in commit order, those
 *   dead-lettered downstream aside (as for the first hop: one dead-lettered leaves its group's
 *   order, and a commit of it that lands late, after the dead letter, is the documented race).
 *
 * @example
 * ```ts
 * checkOutbox(world, committed, failures);
 * ```
 */
export function checkOutbox(
  world: WorldObservation,
  committed: EventCommits,
  failures: string[],
): void {
  const second = world.outbox;
  if (second === undefined) return;
  const changes = world.dynamo.changes.slice(world.changesBefore);
  const published = checkPublished(changes, committed, failures);
  const sent = outboxIdsOf(second.creditedQueue.history);
  const deadLettered = relayDeadLetters(second);
  const givenUp = givenUpIds(world, second, failures);
  for (const message of published.values()) {
    const { id } = message;
    const refused = second.refuses(id);
    if (refused && sent.has(id)) {
      failures.push(`outbox: message ${short(id)} was sent, though its destination refuses it`);
    }
    if (!refused && deadLettered.has(id)) {
      failures.push(
        `outbox: message ${short(id)} dead-lettered by the relay (${deadLettered.get(id)}), though its destination takes it`,
      );
    }
    if (!sent.has(id) && !deadLettered.has(id) && !givenUp.has(id)) {
      failures.push(
        `outbox nothing lost: message ${short(id)} (${message.eventId}, outbox change ${message.change}) was neither sent, dead-lettered nor given up`,
      );
    }
  }
  checkDownstream(second, published, sent, failures);
  if (second.outbox.fifo) checkGroupOrder(second, published, failures);
}

/** Each commit's published message, checked against the commit, by outbox id. */
function checkPublished(
  changes: readonly ChangeRecord[],
  committed: EventCommits,
  failures: string[],
): Map<string, Published> {
  const published = new Map<string, Published>();
  const perTransaction = new Map<string | undefined, Published[]>();
  for (const change of changes) {
    if (change.tableName !== WorldTables.Outbox) continue;
    const messages = outboxMessagesOf(change);
    perTransaction.set(change.transactionId, [
      ...(perTransaction.get(change.transactionId) ?? []),
      ...messages,
    ]);
    for (const message of messages)
      if (!published.has(message.id)) published.set(message.id, message);
  }
  for (const [event, commits] of committed.byEvent) {
    for (const commit of commits) {
      const messages = perTransaction.get(commit.transactionId) ?? [];
      const own = messages.filter((message) => message.eventId === event.eventId);
      // A coalesced transaction also holds its other members' messages, and no one else's.
      const members = committed.byTransaction.get(commit.transactionId) ?? [event];
      const strangers = messages.filter(
        (message) => !members.some((member) => member.eventId === message.eventId),
      );
      if (own.length !== 1 || strangers.length > 0) {
        failures.push(
          `outbox: ${event.eventId}'s commit (change ${commit.sequence}) published ${own.length} credit(s) of its own and ${strangers.length} of events not in its transaction; one of its own expected`,
        );
      }
      const recorded = recordedIds(commit);
      if (recorded.join() !== own.map((message) => message.id).join()) {
        failures.push(
          `outbox: ${event.eventId}'s entry (change ${commit.sequence}) records it published [${recorded.map(short).join(', ')}], but its commit wrote [${own.map((message) => short(message.id)).join(', ')}]`,
        );
      }
    }
  }
  return published;
}

/** The outbox ids a committed entry records as published (`InboxEntry.published`). */
function recordedIds(commit: ChangeRecord): string[] {
  const published = commit.newImage?.published?.L ?? [];
  return published.map((message) => message.M?.id?.S ?? '?');
}

/**
 * The messages an outbox change holds, read from its image by the oracle itself, whatever its
 * format version: not by the relay's reader, which is under test (a mutant of it must not blind
 * the oracle).
 *
 * @example
 * ```ts
 * const [message] = outboxMessagesOf(change);
 * ```
 */
export function outboxMessagesOf(change: ChangeRecord): Published[] {
  return imageMessages(change.newImage).map((message) => {
    const body = JSON.parse(message.body) as { eventId?: string; accountId?: string };
    return {
      id: message.id,
      eventId: body.eventId ?? '',
      accountId: body.accountId ?? '',
      groupId: message.groupId,
      change: change.sequence,
    };
  });
}

type WireImage = Record<string, { L?: Array<{ M?: Record<string, { S?: string }> }> }>;

/** An outbox item's messages (id, body, group) in its image, in DynamoDB JSON. */
function imageMessages(image: unknown) {
  return ((image as WireImage | undefined)?.messages?.L ?? []).flatMap(({ M: message = {} }) => {
    const id = message.id?.S;
    if (id === undefined) return [];
    return [{ id, body: message.body?.S ?? '', groupId: message.groupId?.S }];
  });
}

function outboxIdsOf(messages: readonly QueuedMessage[]): Set<string> {
  return new Set(
    messages.flatMap((message) => {
      const id = message.attributes?.[OutboxMessageIdField.Attribute]?.StringValue;
      return id === undefined ? [] : [id];
    }),
  );
}

/** The relay's dead letters: each refused message's id, with its reason's error name. */
function relayDeadLetters(second: OutboxWorld): Map<string, string> {
  const letters = new Map<string, string>();
  for (const message of second.relayDeadLetterQueue.history) {
    const letter = JSON.parse(message.body) as {
      message?: { id?: string };
      reason?: { error?: string };
    };
    if (letter.message?.id !== undefined) {
      letters.set(letter.message.id, letter.reason?.error ?? 'no reason');
    }
  }
  return letters;
}

/** Ids in batches the mapping gave up on; a give-up after faults stopped is a failure. */
function givenUpIds(world: WorldObservation, second: OutboxWorld, failures: string[]) {
  const ids = new Set<string>();
  for (const batch of second.mapping.givenUp) {
    for (const record of batch.records) {
      for (const id of recordIds(record)) ids.add(id);
    }
    if (batch.atMillis >= world.config.faults.untilMillis + 60_000) {
      failures.push(
        `outbox: the relay's mapping gave up on ${batch.records.length} record(s) of shard ${batch.shard} (${batch.condition}) after faults stopped`,
      );
    }
  }
  return ids;
}

function recordIds(record: DynamoDBRecord): string[] {
  return imageMessages(record.dynamodb?.NewImage).map((message) => message.id);
}

/** Each sent message applied once downstream, or dead-lettered there; nothing else applied. */
function checkDownstream(
  second: OutboxWorld,
  published: ReadonlyMap<string, Published>,
  sent: ReadonlySet<string>,
  failures: string[],
): void {
  const applied = latestImages(second.downstreamDynamo.changes, DownstreamTables.Credits, 'key');
  const downstreamDeadLetters = outboxIdsOf(second.downstreamDeadLetterQueue.history);
  for (const [key, image] of applied) {
    const times = Number(image?.applied?.N ?? 0);
    if (times !== 1) failures.push(`outbox exactly-once: downstream applied ${key} ${times} times`);
    if (!published.has(idOfKey(key))) {
      failures.push(`outbox exactly-once: downstream applied ${key}, which no commit published`);
    }
  }
  for (const id of sent) {
    if (applied.has(`outbox:${id}`) || downstreamDeadLetters.has(id)) continue;
    failures.push(
      `outbox nothing lost: message ${short(id)} was sent downstream but neither applied nor dead-lettered there`,
    );
  }
}

/**
 * Each account's credits applied downstream in the order the ledger committed them, leaving
 * out those dead-lettered downstream.
 */
function checkGroupOrder(
  second: OutboxWorld,
  published: ReadonlyMap<string, Published>,
  failures: string[],
): void {
  const deadLettered = outboxIdsOf(second.downstreamDeadLetterQueue.history);
  const orders = latestImages(
    second.downstreamDynamo.changes,
    DownstreamTables.Accounts,
    'accountId',
  );
  for (const [accountId, image] of orders) {
    const applied = (image?.credited?.L ?? [])
      .map((value) => idOfKey(value.S ?? ''))
      .filter((id) => !deadLettered.has(id));
    const appliedSet = new Set(applied);
    const committedOrder = [...published.values()]
      .filter((message) => message.groupId === accountId && appliedSet.has(message.id))
      .sort((a, b) => a.change - b.change)
      .map((message) => message.id);
    if (applied.join() !== committedOrder.join()) {
      failures.push(
        `outbox FIFO: ${accountId}'s credits applied downstream as [${applied.map(short).join(', ')}], committed as [${committedOrder.map(short).join(', ')}]`,
      );
    }
  }
}

type Image = Record<string, { S?: string; N?: string; L?: Array<{ S?: string }> }>;

/** Each item's last image in a table (absent once deleted), by its key attribute. */
function latestImages(
  changes: readonly ChangeRecord[],
  tableName: string,
  key: string,
): Map<string, Image | undefined> {
  const images = new Map<string, Image | undefined>();
  for (const change of changes) {
    if (change.tableName !== tableName) continue;
    const name = (change.keys[key] as { S?: string } | undefined)?.S ?? '';
    images.set(name, change.newImage as Image | undefined);
  }
  return images;
}

function idOfKey(key: string): string {
  return key.startsWith('outbox:') ? key.slice('outbox:'.length) : key;
}

function short(id: string): string {
  return id.slice(0, 12);
}
