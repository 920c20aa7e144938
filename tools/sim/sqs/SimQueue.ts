import type { SQSRecord } from 'aws-lambda';
import type { Prng } from '../kernel/Prng.js';
import {
  checkSend,
  checkVisibilitySeconds,
  invalidHandle,
  MAX_VISIBILITY_SECONDS,
  messageNotAvailable,
  totalVisibilityBeyondLimit,
} from './sqsRefusals.js';
import { toSqsRecord } from './toSqsRecord.js';

/**
 * A message attribute as `SendMessage` takes it.
 *
 * @example
 * ```ts
 * const attribute: SentAttribute = { DataType: 'String', StringValue: 'PermanentError' };
 * ```
 */
export interface SentAttribute {
  readonly DataType?: string;
  readonly StringValue?: string;
}

/**
 * What a producer, the library's dead-letter publisher or a redrive sends.
 *
 * @example
 * ```ts
 * queue.send({ body: '{"eventId":"e1"}', groupId: 'acct-1', deduplicationId: 'e1' }, 0);
 * ```
 */
export interface SentMessage {
  readonly body: string;
  readonly attributes?: Readonly<Record<string, SentAttribute>>;
  readonly groupId?: string;
  readonly deduplicationId?: string;
  /** When the sender sent the request (it may reach the queue later): for the oracle. */
  readonly requestedAtMillis?: number;
  /** The invocation whose code sent it (the library's DLQ messages): for the oracle. */
  readonly sentBy?: number | undefined;
}

/**
 * One message in a simulated queue, with what SQS tracks about it.
 *
 * @example
 * ```ts
 * const inFlight = queue.messages.filter((m) => m.visibleAtMillis > now);
 * ```
 */
export interface QueuedMessage extends SentMessage {
  readonly messageId: string;
  /** Send order in this queue. */
  readonly sequence: number;
  readonly sentAtMillis: number;
  receiveCount: number;
  firstReceiveAtMillis: number | undefined;
  /** When the latest receive was: SQS counts a message's 12 hours of visibility from it. */
  lastReceiveAtMillis: number | undefined;
  visibleAtMillis: number;
  /** The handle of the latest receive; a delete with an older one may be ignored. */
  receiptHandle: string | undefined;
}

/**
 * One visibility change SQS applied: when, to which message, and when it makes the message
 * visible again. Refused and no-op changes are not recorded.
 *
 * @example
 * ```ts
 * const early = queue.visibilityChanges.filter((change) => change.visibleAtMillis < change.atMillis + 1_000);
 * ```
 */
export interface VisibilityChange {
  readonly messageId: string;
  readonly atMillis: number;
  readonly visibleAtMillis: number;
}

const FIFO_DEDUPLICATION_MILLIS = 5 * 60_000;

/**
 * A simulated SQS queue, standard or FIFO: visibility timeout, receive count, redrive to a
 * dead-letter queue when a message is received past `maxReceiveCount` (with its messageId
 * kept), FIFO groups that block while one of their messages is in flight, FIFO deduplication
 * for five minutes, and receipt handles (a delete with a stale one may leave the message).
 *
 * @example
 * ```ts
 * const dlq = new SimQueue({ name: 'ledger-dlq', fifo: false, visibilityTimeoutMillis: 30_000, random });
 * const queue = new SimQueue({ name: 'ledger', fifo: false, visibilityTimeoutMillis: 30_000, random,
 *   redrive: { deadLetterQueue: dlq, maxReceiveCount: 3 } });
 * ```
 */
export class SimQueue {
  readonly name: string;
  readonly fifo: boolean;
  readonly arn: string;
  readonly url: string;
  readonly visibilityTimeoutMillis: number;
  readonly redrive:
    | { readonly deadLetterQueue: SimQueue; readonly maxReceiveCount: number }
    | undefined;
  /** Messages not deleted, in send order. */
  messages: QueuedMessage[] = [];
  /** Every message this queue ever held (sent here or moved here), in order. */
  readonly history: QueuedMessage[] = [];
  /** Every visibility change applied, in order: what the world's oracle reads. */
  readonly visibilityChanges: VisibilityChange[] = [];
  readonly #random: Prng;
  readonly #onSend: Array<() => void> = [];
  readonly #onVisibleSooner: Array<() => void> = [];
  /** Every receipt handle this queue issued (a handle it never issued is invalid here). */
  readonly #issued = new Set<string>();
  readonly #deduplicatedUntil = new Map<string, number>();
  #sent = 0;
  #receipts = 0;

  constructor(options: {
    readonly name: string;
    readonly fifo: boolean;
    readonly visibilityTimeoutMillis: number;
    readonly random: Prng;
    readonly redrive?: { readonly deadLetterQueue: SimQueue; readonly maxReceiveCount: number };
  }) {
    this.name = options.name;
    this.fifo = options.fifo;
    this.arn = `arn:aws:sqs:us-east-1:000000000000:${options.name}`;
    this.url = `https://sqs.us-east-1.amazonaws.com/000000000000/${options.name}`;
    this.visibilityTimeoutMillis = options.visibilityTimeoutMillis;
    this.redrive = options.redrive;
    this.#random = options.random;
  }

  /** Enqueues a message; a FIFO duplicate within five minutes is dropped (undefined). */
  send(message: SentMessage, nowMillis: number): QueuedMessage | undefined {
    checkSend(this, message);
    const dedup = message.deduplicationId;
    if (this.fifo && dedup !== undefined) {
      if ((this.#deduplicatedUntil.get(dedup) ?? -1) > nowMillis) return undefined;
      this.#deduplicatedUntil.set(dedup, nowMillis + FIFO_DEDUPLICATION_MILLIS);
    }
    const sequence = ++this.#sent;
    const queued: QueuedMessage = {
      ...message,
      messageId: `${this.name}-${sequence}`,
      sequence,
      sentAtMillis: nowMillis,
      receiveCount: 0,
      firstReceiveAtMillis: undefined,
      lastReceiveAtMillis: undefined,
      visibleAtMillis: nowMillis,
      receiptHandle: undefined,
    };
    this.messages.push(queued);
    this.history.push(queued);
    for (const listener of this.#onSend) listener();
    return queued;
  }

  /**
   * Receives up to `max` visible messages, hiding each for the visibility timeout. A message
   * already received `maxReceiveCount` times moves to the dead-letter queue instead.
   */
  receive(max: number, nowMillis: number): QueuedMessage[] {
    this.#redriveExhausted(nowMillis);
    const candidates = this.fifo
      ? this.#fifoCandidates(nowMillis)
      : this.#standardCandidates(nowMillis);
    const received = candidates.slice(0, max);
    for (const message of received) {
      message.receiveCount++;
      message.firstReceiveAtMillis ??= nowMillis;
      message.lastReceiveAtMillis = nowMillis;
      message.visibleAtMillis = nowMillis + this.visibilityTimeoutMillis;
      message.receiptHandle = `${message.messageId}/r${++this.#receipts}`;
      this.#issued.add(message.receiptHandle);
    }
    return received;
  }

  /**
   * Deletes the message of a receipt handle. With a stale handle (the message was received
   * again since) SQS answers success yet may keep the message: `keepStale` decides.
   */
  delete(receiptHandle: string, keepStale: boolean): void {
    const messageId = receiptHandle.slice(0, receiptHandle.lastIndexOf('/'));
    const message = this.messages.find((m) => m.messageId === messageId);
    if (message === undefined) return;
    if (message.receiptHandle !== receiptHandle && keepStale) return;
    this.messages = this.messages.filter((m) => m !== message);
  }

  /**
   * `ChangeMessageVisibility` as SQS applies it: the message of the handle is hidden for
   * `seconds` from now (0 makes it visible at once). Refused: a timeout outside 0–43,200 s or
   * one that would hide the message more than 12 hours since its receive
   * (`InvalidParameterValue`), a handle this queue never issued (`ReceiptHandleIsInvalid`), a
   * handle whose message was deleted or received again since (`InvalidParameterValue`). A
   * handle whose visibility timeout already ran out, the message not received since, changes
   * nothing and succeeds (AWS; MiniStack hides the message again).
   */
  changeVisibility(receiptHandle: string, seconds: number, nowMillis: number): void {
    checkVisibilitySeconds(seconds);
    if (!this.#issued.has(receiptHandle)) throw invalidHandle(receiptHandle);
    const message = this.messages.find((m) => m.receiptHandle === receiptHandle);
    if (message === undefined) throw messageNotAvailable(receiptHandle);
    if (message.visibleAtMillis <= nowMillis) return;
    const receivedAtMillis = message.lastReceiveAtMillis ?? nowMillis;
    if (nowMillis - receivedAtMillis + seconds * 1_000 > MAX_VISIBILITY_SECONDS * 1_000) {
      throw totalVisibilityBeyondLimit(seconds);
    }
    const sooner = nowMillis + seconds * 1_000 < message.visibleAtMillis;
    message.visibleAtMillis = nowMillis + seconds * 1_000;
    const { messageId, visibleAtMillis } = message;
    this.visibilityChanges.push({ messageId, atMillis: nowMillis, visibleAtMillis });
    if (sooner) for (const listener of this.#onVisibleSooner) listener();
  }

  /** Calls `listener` after each send (a long poll wakes up). */
  onSend(listener: () => void): void {
    this.#onSend.push(listener);
  }

  /** Calls `listener` after a visibility change brings a message back sooner (a long poll wakes up). */
  onVisibleSooner(listener: () => void): void {
    this.#onVisibleSooner.push(listener);
  }

  /** When the next hidden message becomes visible again, if one is hidden. */
  nextVisibleAtMillis(nowMillis: number): number | undefined {
    let next: number | undefined;
    for (const message of this.messages) {
      if (message.visibleAtMillis > nowMillis)
        next = Math.min(next ?? message.visibleAtMillis, message.visibleAtMillis);
    }
    return next;
  }

  /** Removes every message (a redrive moves them elsewhere). */
  takeAll(): QueuedMessage[] {
    const taken = this.messages;
    this.messages = [];
    return taken;
  }

  /** Whether a message is hidden by a receive right now. */
  isInFlight(message: QueuedMessage, nowMillis: number): boolean {
    return message.receiptHandle !== undefined && message.visibleAtMillis > nowMillis;
  }

  /** The message as the Lambda event source mapping hands it to a function. */
  toRecord(message: QueuedMessage): SQSRecord {
    return toSqsRecord(message, this);
  }

  #redriveExhausted(nowMillis: number): void {
    const redrive = this.redrive;
    if (redrive === undefined) return;
    for (const message of this.messages) {
      const visible = message.visibleAtMillis <= nowMillis;
      if (!visible || message.receiveCount < redrive.maxReceiveCount) continue;
      this.messages = this.messages.filter((m) => m !== message);
      redrive.deadLetterQueue.#adopt(message, nowMillis);
    }
  }

  /** A message moved here by a redrive policy: the same messageId, body and attributes. */
  #adopt(message: QueuedMessage, nowMillis: number): void {
    const adopted = {
      ...message,
      sequence: ++this.#sent,
      receiptHandle: undefined,
      visibleAtMillis: nowMillis,
    };
    this.messages.push(adopted);
    this.history.push(adopted);
  }

  /** Standard queues deliver roughly, not strictly, in order: a seeded light shuffle. */
  #standardCandidates(nowMillis: number): QueuedMessage[] {
    const visible = this.messages.filter((m) => m.visibleAtMillis <= nowMillis);
    for (let i = visible.length - 1; i > 0; i--) {
      if (!this.#random.chance(0.3)) continue;
      const j = this.#random.int(Math.max(0, i - 3), i);
      [visible[i], visible[j]] = [visible[j] as QueuedMessage, visible[i] as QueuedMessage];
    }
    return visible;
  }

  /** FIFO: each group's messages in order, none from a group with a message in flight. */
  #fifoCandidates(nowMillis: number): QueuedMessage[] {
    const blocked = new Set(
      this.messages.filter((m) => this.isInFlight(m, nowMillis)).map((m) => m.groupId),
    );
    return this.messages.filter((m) => !blocked.has(m.groupId) && m.visibleAtMillis <= nowMillis);
  }
}
