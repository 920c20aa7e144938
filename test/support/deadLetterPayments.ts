import type { TestAws } from '../harness/aws.js';
import { sendLibraryDeadLetter } from './deadLetterScene.js';
import { type PaymentCaptured, payment } from './ledgerFixture.js';

type Queue = { readonly url: string; readonly arn: string };

/** A ledger payment in the DLQ, and its DLQ message's id. */
export interface DeadLetteredPayment {
  readonly event: PaymentCaptured;
  readonly dlqMessageId: string;
}

/** How {@link deadLetterPayments} makes each letter, where a test needs other than the default. */
export interface PaymentLetters {
  /** The reason the library recorded; default `TransientStoreError` (a retry, once unapplied). */
  readonly reason?: string;
  /** The payment of the `n`-th letter; default a fresh {@link payment}. */
  readonly event?: (n: number) => PaymentCaptured;
  /** The letter's body; default the payment's JSON. */
  readonly body?: (event: PaymentCaptured) => string;
  /** The id it had on the source queue; default a fresh one. */
  readonly originalMessageId?: (n: number) => string;
}

/**
 * Puts `count` ledger payments that never committed in `queues.dlq`, one after another, as the
 * library dead-letters them from `queues.source`: each keyed by its `eventId`, as the ledger
 * keys. Returns them in the DLQ's order.
 *
 * @example
 * ```ts
 * const letters = await deadLetterPayments(aws, { dlq, source }, 6);
 * ```
 */
export async function deadLetterPayments(
  aws: TestAws,
  queues: { readonly dlq: Queue; readonly source: Queue },
  count: number,
  letters: PaymentLetters = {},
): Promise<DeadLetteredPayment[]> {
  const sent: DeadLetteredPayment[] = [];
  for (let n = 0; n < count; n++) {
    const event = letters.event?.(n) ?? payment();
    const originalMessageId = letters.originalMessageId?.(n);
    const dlqMessageId = await sendLibraryDeadLetter(aws, queues.dlq, {
      body: letters.body?.(event) ?? JSON.stringify(event),
      reason: letters.reason ?? 'TransientStoreError',
      consumer: 'ledger',
      source: queues.source,
      key: event.eventId,
      ...(originalMessageId === undefined ? {} : { originalMessageId }),
    });
    sent.push({ event, dlqMessageId });
  }
  return sent;
}

/**
 * A DLQ and the source queue its letters came from, named `<prefix>-dlq-…` and
 * `<prefix>-source-…`; `sourceAttributes` are the source queue's (its visibility timeout, say).
 *
 * @example
 * ```ts
 * const { dlq, source } = await deadLetterQueues(aws, 'lease');
 * ```
 */
export async function deadLetterQueues(
  aws: TestAws,
  prefix: string,
  sourceAttributes: Record<string, string> = {},
): Promise<{ readonly dlq: Queue; readonly source: Queue }> {
  const [dlq, source] = await Promise.all([
    aws.createQueue(aws.uniqueName(`${prefix}-dlq`)),
    aws.createQueue(aws.uniqueName(`${prefix}-source`), sourceAttributes),
  ]);
  return { dlq, source };
}
