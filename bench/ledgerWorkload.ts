import type { SQSRecord } from 'aws-lambda';
import type { PaymentCaptured } from '../functions/ledger/paymentCaptured.js';
import { copyOf, fifoRecord, redeliveryOf } from '../src/testing/index.js';

/** The shape of a `bench:kit` run: how many records, how many of them copies, over what. */
export interface LedgerWorkloadShape {
  /** Records delivered in all, originals and copies. */
  readonly records: number;
  /** The share of the records that are copies of a payment already delivered. */
  readonly copyShare: number;
  /** Accounts the payments spread over: each is a message group of the ledger's FIFO queue. */
  readonly accounts: number;
  /** Records per batch, as Lambda's event source mapping delivers them. */
  readonly batchSize: number;
}

/** The batches of a run, in delivery order, and the distinct payments they carry. */
export interface LedgerWorkload {
  readonly batches: readonly (readonly SQSRecord[])[];
  readonly distinct: readonly PaymentCaptured[];
}

/** The ledger's source queue: FIFO, one message group per account. */
export const LEDGER_QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:ledger.fifo';

// Records between a payment's first delivery and its resend: from one batch to about ten later.
const RESEND_GAP_MIN = 10;
const RESEND_GAP_SPREAD = 90;

/**
 * The records of a run, batched as Lambda delivers a FIFO queue. Half the copies are the
 * producer's resends after the queue's five-minute deduplication window (`copyOf`: a new message
 * id, at the tail of the account's group, one to ten batches after the first); the other half are
 * whole batches delivered again right after themselves (`redeliveryOf`: same ids, one more
 * receive), as when a function times out after committing and its messages come back before the
 * rest of their groups. The same shape gives the same bodies and order (message ids differ).
 *
 * @example
 * ```ts
 * const { batches, distinct } = makeLedgerWorkload({ records: 1000, copyShare: 0.1, accounts: 50, batchSize: 10 });
 * ```
 */
export function makeLedgerWorkload(shape: LedgerWorkloadShape): LedgerWorkload {
  const copies = Math.round(shape.records * shape.copyShare);
  const redeliveredBatches = Math.floor(copies / 2 / shape.batchSize);
  const resends = copies - redeliveredBatches * shape.batchSize;
  const distinct = Array.from({ length: shape.records - copies }, (_, i) => paymentAt(i, shape));
  const stream = deliveryOrder(distinct.length, resends).map(recordMaker(distinct));
  const batches: SQSRecord[][] = [];
  for (let at = 0; at < stream.length; at += shape.batchSize)
    batches.push(stream.slice(at, at + shape.batchSize));
  return { batches: withRedeliveries(batches, redeliveredBatches), distinct };
}

function paymentAt(i: number, shape: LedgerWorkloadShape): PaymentCaptured {
  return {
    eventId: `evt-${i}`,
    accountId: `acc-${i % shape.accounts}`,
    paymentId: `pay-${i}`,
    amountCents: 100 + ((i * 7919) % 900),
    currency: 'EUR',
  };
}

/** A place in the delivery order: a payment's first delivery, or its producer's resend. */
interface Delivery {
  readonly payment: number;
  readonly resend: boolean;
}

/** The first deliveries, with `count` resends spread among them, each after its first. */
function deliveryOrder(payments: number, count: number): Delivery[] {
  const placed = Array.from({ length: payments }, (_, at) => ({
    delivery: { payment: at, resend: false },
    position: at,
  }));
  for (let n = 0; n < count; n++) {
    const payment = (n * 7919) % payments;
    const gap = RESEND_GAP_MIN + ((n * 31) % RESEND_GAP_SPREAD);
    // The half keeps a resend after the first delivery that sits at its position.
    placed.push({ delivery: { payment, resend: true }, position: payment + gap + 0.5 });
  }
  return placed.sort((a, b) => a.position - b.position).map(({ delivery }) => delivery);
}

/**
 * Makes the records in delivery order, so that sequence numbers grow along each group as a FIFO
 * queue's do: a first delivery of its payment, a resend as `copyOf` the first.
 */
function recordMaker(distinct: readonly PaymentCaptured[]): (delivery: Delivery) => SQSRecord {
  const first = new Map<number, SQSRecord>();
  return ({ payment, resend }) => {
    const original = first.get(payment);
    if (resend && original !== undefined) return copyOf(original);
    const body = distinct[payment] as PaymentCaptured;
    const record = fifoRecord(body, { groupId: body.accountId, queueArn: LEDGER_QUEUE_ARN });
    first.set(payment, record);
    return record;
  };
}

/** The batches with `count` full ones, spread evenly, each delivered again right after itself. */
function withRedeliveries(batches: readonly SQSRecord[][], count: number): SQSRecord[][] {
  // Never the last batch, which may be short of a full one.
  const every = (batches.length - 1) / count;
  const again = new Set(Array.from({ length: count }, (_, n) => Math.floor((n + 0.5) * every)));
  return batches.flatMap((batch, at) =>
    again.has(at) ? [batch, batch.map((record) => redeliveryOf(record))] : [batch],
  );
}
