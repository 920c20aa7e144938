import type { DynamoDBRecord } from 'aws-lambda';
import { errorMessage } from '../errors/errorText.js';
import type { OutboxDeadLetter } from '../outbox/OutboxDeadLetter.js';
import type { OutboxRelayProcessor } from './createOutboxRelay.js';
import { readOutboxRecord } from './readOutboxRecord.js';

/**
 * What became of a dead letter without a message to send: left with the reason, or, for an
 * unreadable record this release reads now, relayed again.
 *
 * @example
 * ```ts
 * const { kind, status, reason } = await redriveWithoutMessage(letter, relay, false);
 * ```
 */
export interface UnsentRedrive {
  readonly kind: 'message' | 'record';
  readonly status: 'redriven' | 'left' | 'wouldRedrive';
  readonly outboxIds: readonly string[];
  readonly reason?: string;
}

/**
 * Redrives a dead letter with no message to send. A refused message too large for the queue in
 * full (`messageEnvelope`) is left, saying where its content is. An unreadable record's image is
 * relayed again when this release reads it: an outbox item of a format version newer than the
 * relay that dead-lettered it read, once the relay is upgraded. An image it still cannot read
 * (an item other code wrote, a version newer still) is left with the reader's reason, and so is
 * a letter whose image did not fit, saying where the item is.
 *
 * @example
 * ```ts
 * const outcome = await redriveWithoutMessage(letter, createOutboxRelay({ deadLetterQueueUrl }), false);
 * ```
 */
export async function redriveWithoutMessage(
  letter: OutboxDeadLetter,
  relay: OutboxRelayProcessor,
  dryRun: boolean,
): Promise<UnsentRedrive> {
  const { messageEnvelope, omitted, record, image } = letter;
  const where =
    `the outbox item ${record?.pk ?? '(no key)'} (until its TTL; a group's item until the ` +
    `group's next commit) or the stream record ${record?.sequenceNumber ?? '?'} (24 hours)`;
  if (messageEnvelope !== undefined) {
    const id = typeof messageEnvelope.id === 'string' ? [messageEnvelope.id] : [];
    const reason =
      `the letter in full (${omitted?.letterBytes ?? '?'} bytes) did not fit in the dead-letter ` +
      `queue and carries no body or attributes: send the message again from ${where}, with its outbox id`;
    return { kind: 'message', status: 'left', outboxIds: id, reason };
  }
  if (image !== undefined) return { kind: 'record', ...(await relayImage(letter, relay, dryRun)) };
  const missing =
    omitted === undefined
      ? 'it holds no image'
      : `its image did not fit in the letter; read ${where}`;
  const reason = `an unreadable stream record, not an outbox message: nothing to send (${missing}; fix what wrote the item)`;
  return { kind: 'record', status: 'left', outboxIds: [], reason };
}

/** Relays a letter's image again if this release reads it; otherwise leaves it, saying why. */
async function relayImage(
  letter: OutboxDeadLetter,
  relay: OutboxRelayProcessor,
  dryRun: boolean,
): Promise<Omit<UnsentRedrive, 'kind'>> {
  const record = streamRecordOf(letter);
  const read = readOutboxRecord(record);
  if (read.kind !== 'messages') {
    const why = read.kind === 'unreadable' ? read.error.message : `a ${read.eventName} record`;
    const reason = `an unreadable stream record, not an outbox message: nothing to send (${why})`;
    return { status: 'left', outboxIds: [], reason };
  }
  const outboxIds = read.messages.map((message) => message.id);
  if (dryRun) return { status: 'wouldRedrive', outboxIds };
  const [outcome] = await relay.relayRecords({ Records: [record] });
  if (outcome?.status !== 'relayed') {
    const reason = `its item's messages failed again: ${errorMessage(outcome?.error)}`;
    return { status: 'left', outboxIds, reason };
  }
  if (outcome.deadLettered === 0) return { status: 'redriven', outboxIds };
  const reason = `${outcome.deadLettered} of its messages refused again and dead-lettered anew, each in a letter of its own`;
  return { status: 'redriven', outboxIds, reason };
}

/** The stream record a letter was written for, rebuilt from what it kept of it. */
function streamRecordOf(letter: OutboxDeadLetter): DynamoDBRecord {
  const { sequenceNumber, eventID, pk } = letter.record;
  return {
    ...(eventID === undefined ? {} : { eventID }),
    eventName: 'INSERT',
    dynamodb: {
      ...(pk === undefined ? {} : { Keys: { pk: { S: pk } } }),
      NewImage: letter.image as never,
      SequenceNumber: sequenceNumber,
    },
  };
}
