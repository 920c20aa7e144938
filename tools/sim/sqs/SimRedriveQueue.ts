import type { SQSRecord } from 'aws-lambda';
import { DeadLetterAttribute } from '../../../src/constants/values.js';
import type {
  QueueDepth,
  RedrivenCopy,
  RedriveQueue,
} from '../../../src/operations/RedriveQueue.js';
import type { QueuedMessage, SentAttribute, SimQueue } from './SimQueue.js';

/**
 * What a run's DLQ tells the world of the run, and how the world slows it down.
 *
 * @example
 * ```ts
 * const hooks: RedriveQueueHooks = { witness: (action, id) => actions.push({ action, id }) };
 * ```
 */
export interface RedriveQueueHooks {
  /** Told of each send and delete as it happens, with the DLQ message's id. */
  readonly witness?: (action: 'send' | 'delete', dlqMessageId: string) => void;
  /** Awaited before each receive (the operator's process suspended). */
  readonly beforeReceive?: () => Promise<void>;
  /**
   * Told of a message received again while the run still held it (received, neither deleted
   * nor released): its hold lapsed. `heldSinceMillis` is when the run first received it.
   */
  readonly receivedAgain?: (dlqMessageId: string, heldSinceMillis: number) => void;
}

/**
 * A simulated DLQ as the inbox-aware redrive reads it (`RedriveQueue`), over the world's queues
 * and clock: receives hide messages for the asked time, releases make them visible at once,
 * copies go to the queue of their ARN. What it sent back is kept for the oracle, and it knows
 * what the run holds: a message it receives again before the run deleted or released it is told.
 *
 * @example
 * ```ts
 * const dlq = new SimRedriveQueue(deadLetterQueue, [queue], () => kernel.nowMillis, WORLD_EPOCH_MILLIS);
 * ```
 */
export class SimRedriveQueue implements RedriveQueue {
  /** The copies this queue sent back, in order. */
  readonly sent: QueuedMessage[] = [];
  /** What the run holds: each message it received and neither deleted nor released, since when. */
  readonly #held = new Map<string, number>();

  constructor(
    private readonly queue: SimQueue,
    private readonly sources: readonly SimQueue[],
    private readonly nowMillis: () => number,
    /** Added to the queue's times (the kernel's) to give the world's wall clock, as SQS does. */
    private readonly epochMillis: number,
    private readonly hooks: RedriveQueueHooks = {},
  ) {}

  get arn(): string {
    return this.queue.arn;
  }

  get fifo(): boolean {
    return this.queue.fifo;
  }

  async receive(visibilitySeconds: number): Promise<readonly SQSRecord[]> {
    await this.hooks.beforeReceive?.();
    const now = this.nowMillis();
    return this.queue.receive(10, now).map((message) => {
      message.visibleAtMillis = now + visibilitySeconds * 1000;
      const heldSinceMillis = this.#held.get(message.messageId);
      if (heldSinceMillis === undefined) this.#held.set(message.messageId, now);
      else this.hooks.receivedAgain?.(message.messageId, heldSinceMillis);
      const record = this.queue.toRecord(message);
      const sent = String(Number(record.attributes.SentTimestamp) + this.epochMillis);
      return { ...record, attributes: { ...record.attributes, SentTimestamp: sent } };
    });
  }

  async hide(records: readonly SQSRecord[], visibilitySeconds: number): Promise<void> {
    for (const record of records) {
      const message = this.queue.messages.find((m) => m.receiptHandle === record.receiptHandle);
      if (message) message.visibleAtMillis = this.nowMillis() + visibilitySeconds * 1000;
    }
  }

  async release(records: readonly SQSRecord[]): Promise<void> {
    for (const record of records) {
      this.#held.delete(record.messageId);
      const message = this.queue.messages.find((m) => m.receiptHandle === record.receiptHandle);
      if (message) message.visibleAtMillis = this.nowMillis();
    }
  }

  async remove(record: SQSRecord): Promise<void> {
    this.hooks.witness?.('delete', record.messageId);
    this.#held.delete(record.messageId);
    this.queue.delete(record.receiptHandle, false);
  }

  async sendBack(destinationArn: string, copy: RedrivenCopy): Promise<string> {
    const source = this.sources.find((queue) => queue.arn === destinationArn);
    if (source === undefined) throw new Error(`no simulated queue ${destinationArn}`);
    this.hooks.witness?.(
      'send',
      copy.messageAttributes[DeadLetterAttribute.RedriveOf]?.stringValue ?? '',
    );
    const attributes: Record<string, SentAttribute> = {};
    for (const [name, value] of Object.entries(copy.messageAttributes)) {
      attributes[name] = {
        DataType: value.dataType,
        ...(value.stringValue === undefined ? {} : { StringValue: value.stringValue }),
      };
    }
    const queued = source.send(
      {
        body: copy.body,
        attributes,
        ...(copy.groupId === undefined ? {} : { groupId: copy.groupId }),
        ...(copy.deduplicationId === undefined ? {} : { deduplicationId: copy.deduplicationId }),
      },
      this.nowMillis(),
    );
    if (queued === undefined) return 'deduplicated';
    this.sent.push(queued);
    return queued.messageId;
  }

  async depth(): Promise<QueueDepth> {
    const now = this.nowMillis();
    const inFlight = this.queue.messages.filter((m) => m.visibleAtMillis > now).length;
    return {
      visible: this.queue.messages.length - inFlight,
      inFlight,
      retentionSeconds: 14 * 86_400,
    };
  }

  /** The simulated queues keep every message: SQS's longest retention stands in. */
  async retentionSecondsOf(): Promise<number | undefined> {
    return undefined;
  }
}
