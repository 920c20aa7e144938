import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { AwsOutboxSender } from '../aws/AwsOutboxSender.js';
import { OutboxDeadLetterQueue, type QueuedDeadLetter } from '../aws/OutboxDeadLetterQueue.js';
import { readStreamBatch, type StreamBatchInfo } from '../aws/readStreamBatch.js';
import { OutboxAttribute } from '../constants/values.js';
import { checkOptionsObject, type MovedOptions } from '../core/checkOptionsObject.js';
import { isQueueUrl } from '../core/optionChecks.js';
import { errorMessage } from '../errors/errorText.js';
import { InvalidConfigurationError } from '../errors.js';
import { parseDestination } from '../outbox/Destination.js';
import { OUTBOX_DEAD_LETTER_KIND, type OutboxDeadLetter } from '../outbox/OutboxDeadLetter.js';
import type { OutboxSender } from '../outbox/OutboxSender.js';
import type { OutgoingMessage } from '../outbox/OutgoingMessage.js';
import {
  createOutboxRelay,
  type OutboxRelayDeadLetterSettings,
  type OutboxRelayProcessor,
} from './createOutboxRelay.js';
import { redriveWithoutMessage } from './redriveWithoutMessage.js';

/**
 * Options of {@link redriveOutbox}.
 *
 * @example
 * ```ts
 * const options: RedriveOutboxOptions = { deadLetter: { queueUrl: process.env.RELAY_DLQ_URL ?? '' } };
 * ```
 * @public
 */
export interface RedriveOutboxOptions {
  /**
   * The relay's dead-letter queue (also its mapping's on-failure destination), and the client
   * that reads it; default the default sender's SQS client.
   */
  readonly deadLetter: Omit<OutboxRelayDeadLetterSettings, 'sink'>;
  /** Classify only: nothing is sent, nothing deleted. */
  readonly dryRun?: boolean;
  /** Dead letters to handle at most in this run. Default: all the queue shows. */
  readonly maxMessages?: number;
  /**
   * Sends refused messages again; default an `AwsOutboxSender` with clients built lazily. Pass
   * `new AwsOutboxSender({ sqsClient, snsClient, eventBridgeClient })` to choose the clients.
   */
  readonly sender?: OutboxSender;
  /** Relays a batch read back from the stream; default the library's relay, same queue and sender. */
  readonly relay?: OutboxRelayProcessor;
  /** Reads given-up batches back (`@aws-sdk/client-dynamodb-streams`, loaded when needed). */
  readonly streamsClient?: DynamoDBStreamsClient;
}

/**
 * What became of one dead letter.
 * @public
 */
export interface RedriveOutcome {
  /** The dead letter's SQS message id. */
  readonly messageId: string;
  /** A refused message, a given-up stream batch, an unreadable record, or no relay dead letter. */
  readonly kind: 'message' | 'batch' | 'record' | 'unknown';
  /**
   * `redriven`: sent again (or relayed) and deleted; `left`: still in the queue, see `reason`;
   * `wouldRedrive`: what `dryRun` would have redriven, left as it was.
   */
  readonly status: 'redriven' | 'left' | 'wouldRedrive';
  /** The outbox ids the letter carries (a batch's: those of its records' messages). */
  readonly outboxIds: readonly string[];
  /**
   * Why a letter was left, and what to do; on a batch redriven, how many of its messages were
   * refused again and dead-lettered anew. Absent otherwise.
   */
  readonly reason?: string;
}

const OPTIONS = ['deadLetter', 'dryRun', 'maxMessages', 'sender', 'relay', 'streamsClient'];
/** The flat options of 0.1.0, by where each went. */
const MOVED_OPTIONS: MovedOptions = {
  deadLetterQueueUrl: 'deadLetter.queueUrl',
  sqsClient: 'deadLetter.client, and sender: new AwsOutboxSender({ sqsClient })',
  snsClient: 'sender: new AwsOutboxSender({ snsClient })',
  eventBridgeClient: 'sender: new AwsOutboxSender({ eventBridgeClient })',
};
// Long enough to send a letter's message or relay a batch before another reader sees it.
const VISIBILITY_SECONDS = 120;
// Pages in a row with nothing new to handle (letters seen already in this run).
const MAX_IDLE_PAGES = 3;

/**
 * The relay's runbook as code: reads the relay's dead-letter queue and, for each letter, sends
 * a refused message again to its destination with its outbox id (so a downstream inbox that
 * already has it acknowledges it), or reads a batch Lambda gave up on back from the stream
 * (within its 24 hours) and relays it with the library's relay, or relays again the image of
 * a record the relay could not read then and this release reads now (an outbox item of a newer
 * format version, once the relay is upgraded). A letter redriven is deleted; one that fails
 * again, a record still unreadable or a body that is no relay dead letter stays in the queue,
 * visible at once, with its reason in the outcome. Fix the cause first: a destination still
 * refusing refuses again.
 *
 * @example
 * ```ts
 * const outcomes = await redriveOutbox({ deadLetter: { queueUrl: process.env.RELAY_DLQ_URL ?? '' } });
 * for (const o of outcomes.filter((o) => o.status === 'left')) console.log(o.messageId, o.reason);
 * ```
 * @public
 */
export async function redriveOutbox(options: RedriveOutboxOptions): Promise<RedriveOutcome[]> {
  const settings = resolve(options);
  const outcomes: RedriveOutcome[] = [];
  // Received and not deleted, by message id, with its latest receipt: all released at the end,
  // also when a request fails midway, so none stays hidden from the next run.
  const held = new Map<string, QueuedDeadLetter>();
  let idlePages = 0;
  try {
    while (outcomes.length < settings.maxMessages && idlePages < MAX_IDLE_PAGES) {
      const page = await settings.queue.receive(
        Math.min(10, settings.maxMessages - outcomes.length),
      );
      if (page.length === 0) break;
      let handled = 0;
      for (const letter of page) {
        const again = held.has(letter.messageId);
        held.set(letter.messageId, letter);
        // Seen already (visible again in a run longer than its visibility): not handled twice.
        // A letter the relay writes during the run (a message refused again) is new: handled.
        if (again) continue;
        if (outcomes.length >= settings.maxMessages) continue;
        handled += 1;
        const outcome = await redriveOne(letter, settings);
        outcomes.push(outcome);
        if (outcome.status !== 'redriven') continue;
        await settings.queue.delete(letter);
        held.delete(letter.messageId);
      }
      idlePages = handled === 0 ? idlePages + 1 : 0;
    }
  } finally {
    for (const letter of held.values()) await settings.queue.release(letter).catch(() => undefined);
  }
  return outcomes;
}

interface RedriveSettings {
  readonly queue: OutboxDeadLetterQueue;
  readonly sender: OutboxSender;
  readonly relay: OutboxRelayProcessor;
  readonly streamsClient: DynamoDBStreamsClient | undefined;
  readonly dryRun: boolean;
  readonly maxMessages: number;
}

function resolve(options: RedriveOutboxOptions): RedriveSettings {
  checkOptionsObject(options, OPTIONS, '{ deadLetter: { queueUrl } }', { moved: MOVED_OPTIONS });
  checkOptionsObject(options.deadLetter, ['queueUrl', 'client'], '{ queueUrl }', {
    path: 'deadLetter.',
  });
  const { queueUrl, client } = options.deadLetter;
  if (typeof queueUrl !== 'string' || !isQueueUrl(queueUrl)) {
    throw new InvalidConfigurationError(
      'deadLetter.queueUrl',
      queueUrl,
      "an SQS queue URL (the relay's dead-letter queue)",
    );
  }
  const maxMessages = options.maxMessages ?? Number.POSITIVE_INFINITY;
  if (
    !(
      maxMessages === Number.POSITIVE_INFINITY ||
      (Number.isInteger(maxMessages) && maxMessages > 0)
    )
  ) {
    throw new InvalidConfigurationError('maxMessages', maxMessages, 'a whole number above 0');
  }
  const sender = options.sender ?? new AwsOutboxSender();
  const queueClient =
    client ?? (sender instanceof AwsOutboxSender ? sender : new AwsOutboxSender()).sqsClient;
  return {
    queue: new OutboxDeadLetterQueue(queueClient, queueUrl, VISIBILITY_SECONDS),
    sender,
    relay:
      options.relay ?? createOutboxRelay({ deadLetter: { queueUrl, client: queueClient }, sender }),
    streamsClient: options.streamsClient,
    dryRun: options.dryRun === true,
    maxMessages,
  };
}

async function redriveOne(
  letter: QueuedDeadLetter,
  settings: RedriveSettings,
): Promise<RedriveOutcome> {
  const body = parse(letter.body);
  const base = { messageId: letter.messageId };
  if (body?.kind === OUTBOX_DEAD_LETTER_KIND) {
    const letter = body as unknown as OutboxDeadLetter;
    const { message } = letter;
    if (message === undefined) {
      return { ...base, ...(await redriveWithoutMessage(letter, settings.relay, settings.dryRun)) };
    }
    if (!isSendable(message)) {
      const reason =
        "its message lacks a string id, destination or body, or its kind is not its destination's";
      return { ...base, kind: 'message', status: 'left', outboxIds: [], reason };
    }
    const outboxIds = [message.id];
    if (settings.dryRun) return { ...base, kind: 'message', status: 'wouldRedrive', outboxIds };
    try {
      await settings.sender.send(message);
      return { ...base, kind: 'message', status: 'redriven', outboxIds };
    } catch (error) {
      return { ...base, kind: 'message', status: 'left', outboxIds, reason: errorMessage(error) };
    }
  }
  const info = batchInfoOf(body);
  if (info === undefined) {
    const reason = 'neither a relay dead letter nor a given-up stream batch (DDBStreamBatchInfo)';
    return { ...base, kind: 'unknown', status: 'left', outboxIds: [], reason };
  }
  return redriveBatch(letter, info, settings);
}

async function redriveBatch(
  letter: QueuedDeadLetter,
  info: StreamBatchInfo,
  settings: RedriveSettings,
): Promise<RedriveOutcome> {
  const base = { messageId: letter.messageId, kind: 'batch' as const };
  let records: Awaited<ReturnType<typeof readStreamBatch>>;
  try {
    records = await readStreamBatch(info, settings.streamsClient);
  } catch (error) {
    const reason = `cannot read the batch back from the stream (records are kept 24 hours): ${errorMessage(error)}`;
    return { ...base, status: 'left', outboxIds: [], reason };
  }
  if (records.length === 0) {
    const reason = 'the stream holds none of the batch any more (records are kept 24 hours)';
    return { ...base, status: 'left', outboxIds: [], reason };
  }
  const outboxIds = records.flatMap(messageIdsOf);
  if (settings.dryRun) return { ...base, status: 'wouldRedrive', outboxIds };
  const outcomes = await settings.relay.relayRecords({ Records: records });
  const failed = outcomes.filter((outcome) => outcome.status === 'failed');
  const refused = outcomes.reduce((sum, outcome) => sum + outcome.deadLettered, 0);
  if (failed.length === 0 && refused > 0) {
    const reason = `${refused} of its messages refused again and dead-lettered anew, each in a letter of its own`;
    return { ...base, status: 'redriven', outboxIds, reason };
  }
  if (failed.length === 0) return { ...base, status: 'redriven', outboxIds };
  const reason = `${failed.length} of ${records.length} records failed again: ${errorMessage(failed[0]?.error)}`;
  return { ...base, status: 'left', outboxIds, reason };
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A dead letter's message as the relay wrote it: the sender can send it as it is. */
function isSendable(message: OutgoingMessage): boolean {
  const { id, destination, body, kind } = message as Partial<
    Record<keyof OutgoingMessage, unknown>
  >;
  return (
    typeof id === 'string' &&
    typeof body === 'string' &&
    typeof destination === 'string' &&
    parseDestination(destination)?.kind === kind
  );
}

function batchInfoOf(body: Record<string, unknown> | undefined): StreamBatchInfo | undefined {
  const info = body?.DDBStreamBatchInfo as Partial<StreamBatchInfo> | undefined;
  const fields = [
    info?.streamArn,
    info?.shardId,
    info?.startSequenceNumber,
    info?.endSequenceNumber,
  ];
  return fields.every((field) => typeof field === 'string') ? (info as StreamBatchInfo) : undefined;
}

/** The outbox ids a record's new image carries (its messages' `id`s). */
function messageIdsOf(record: { dynamodb?: { NewImage?: Record<string, unknown> } }): string[] {
  const image = record.dynamodb?.NewImage;
  const messages = (image?.[OutboxAttribute.Messages] as { L?: unknown[] } | undefined)?.L ?? [];
  return messages.flatMap((message) => {
    const id = (message as { M?: { id?: { S?: string } } }).M?.id?.S;
    return id === undefined ? [] : [id];
  });
}
