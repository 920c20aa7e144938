import type { ChaosConsumer } from './ChaosTraffic.js';
import { CrashPoint, type HeldMessage, type WorkerReport } from './workerProtocol.js';

type Question = Extract<WorkerReport, { type: 'question' }>;
type Waiter = {
  readonly askerId: number;
  readonly matches: (holder: number, held: HeldMessage) => boolean;
  readonly answer: () => void;
};

/**
 * Which worker holds which message, from the workers' `received` and `settled` reports: a
 * message is held by the worker that received it last, until that worker settles it or dies.
 * It answers the crash switches' questions (has another worker received my message? does
 * another worker of my consumer hold a copy of my event?) and judges, at a kill, whether the
 * victim was racing another worker.
 *
 * @example
 * ```ts
 * holdings.hold(7, { messageId: 'm-1', key: 'evt-1' });
 * holdings.heldElsewhere({ spawnId: 8, consumer: 'inventory' }, CrashPoint.SlowHandler, held);
 * ```
 */
export class MessageHoldings {
  readonly #latestReceiver = new Map<string, number>();
  readonly #consumerOf = new Map<number, ChaosConsumer>();
  readonly #keyOf = new Map<string, string>();
  #waiters: Waiter[] = [];

  addWorker(spawnId: number, consumer: ChaosConsumer): void {
    this.#consumerOf.set(spawnId, consumer);
  }

  hold(spawnId: number, message: HeldMessage): void {
    this.#latestReceiver.set(message.messageId, spawnId);
    if (message.key !== undefined) this.#keyOf.set(message.messageId, message.key);
    const ready = this.#waiters.filter((waiter) => waiter.matches(spawnId, message));
    this.#waiters = this.#waiters.filter((w) => !ready.includes(w));
    for (const waiter of ready) waiter.answer();
  }

  release(spawnId: number, messageId: string): void {
    if (this.#latestReceiver.get(messageId) !== spawnId) return;
    this.#latestReceiver.delete(messageId);
    this.#keyOf.delete(messageId);
  }

  /** A worker died: it holds nothing more and its open questions need no answer. */
  forgetWorker(spawnId: number): void {
    for (const [messageId, holder] of this.#latestReceiver)
      if (holder === spawnId) this.release(spawnId, messageId);
    this.#waiters = this.#waiters.filter((waiter) => waiter.askerId !== spawnId);
  }

  /** Answers at once when it can, else when a matching receipt comes or `waitMillis` passes. */
  answer(
    asker: { spawnId: number; consumer: ChaosConsumer },
    question: Question,
    reply: (yes: boolean) => void,
  ): void {
    const { messageId, key } = question.message;
    const matches =
      question.question === 'copyHeldElsewhere'
        ? (holder: number, held: HeldMessage) =>
            held.key === key &&
            held.messageId !== messageId &&
            holder !== asker.spawnId &&
            this.#consumerOf.get(holder) === asker.consumer
        : (holder: number, held: HeldMessage) =>
            held.messageId === messageId && holder !== asker.spawnId;
    if (this.#heldNow().some(([holder, held]) => matches(holder, held))) {
      reply(true);
      return;
    }
    const timer = setTimeout(() => {
      this.#waiters = this.#waiters.filter((w) => w !== waiter);
      reply(false);
    }, question.waitMillis);
    const waiter: Waiter = {
      askerId: asker.spawnId,
      matches,
      answer: () => {
        clearTimeout(timer);
        reply(true);
      },
    };
    this.#waiters.push(waiter);
  }

  /**
   * At the kill: does another worker of the victim's consumer hold the message itself (point 4)
   * or another copy of its event (point 5) right now?
   */
  heldElsewhere(
    victim: { spawnId: number; consumer: ChaosConsumer },
    point: CrashPoint,
    message: HeldMessage | undefined,
  ): boolean {
    if (message === undefined) return false;
    return this.#heldNow().some(
      ([holder, held]) =>
        holder !== victim.spawnId &&
        this.#consumerOf.get(holder) === victim.consumer &&
        (point === CrashPoint.SlowHandler
          ? held.messageId === message.messageId
          : held.key === message.key && held.messageId !== message.messageId),
    );
  }

  /** Every message some live worker holds now, with its holder. */
  #heldNow(): Array<[number, HeldMessage]> {
    return [...this.#latestReceiver].map(([messageId, holder]) => [
      holder,
      { messageId, key: this.#keyOf.get(messageId) },
    ]);
  }
}
