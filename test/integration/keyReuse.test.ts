import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { InboxStatus, inboxPk } from '../../src/constants/index.js';
import { PayloadMismatchError } from '../../src/errors.js';
import { type MessageHandler, Precheck, RecordStatus } from '../../src/index.js';
import {
  ledgerProcessor,
  type PaymentCaptured,
  payment,
  useLedger,
} from '../support/ledgerFixture.js';
import { sqsEvent, sqsRecord } from '../support/sqsRecords.js';

const { aws, ledger } = useLedger();
const CONSUMER = 'payouts';

/**
 * A consumer whose handler runs a step only for some bodies: a payout of 1,000 cents or more is
 * charged in a step (and, while `failing` says so, fails after it); a smaller one is only
 * credited in `tx`.
 */
function payoutHandler(charges: string[], failing: () => boolean) {
  const handler: MessageHandler<PaymentCaptured> = async ({ body, step }, tx) => {
    if (body.amountCents >= 1_000) {
      await step('charge', () => {
        charges.push(body.paymentId);
        return { chargeId: `ch-${body.paymentId}` };
      });
      if (failing()) throw new Error('the payout provider timed out');
    }
    ledger.credit(body, tx);
  };
  return handler;
}

async function balanceOf(accountId: string): Promise<number | undefined> {
  const { Item } = await aws.documentClient.send(
    new GetCommand({ TableName: ledger.tables.accounts, Key: { accountId } }),
  );
  return Item?.balanceCents as number | undefined;
}

describe('no write of any path takes over an entry that holds another payload hash', () => {
  for (const precheck of [Precheck.Off, Precheck.Before, Precheck.Concurrent] as const) {
    for (const coalesce of precheck === Precheck.Concurrent ? [false, true] : [false]) {
      it(`refuses a step-less commit of a reused key while another payload's journaled attempt is unfinished, and that attempt commits later (precheck ${precheck}${coalesce ? ', coalesced' : ''})`, async () => {
        const eventId = `evt-${randomUUID()}`;
        const accountId = `acc-${randomUUID()}`;
        const first = payment({ eventId, accountId, amountCents: 5_000 });
        const reused = payment({ eventId, accountId, amountCents: 250 });
        const charges: string[] = [];
        let failing = true;
        const handled: string[] = [];
        const inner = payoutHandler(charges, () => failing);
        const handler: MessageHandler<PaymentCaptured> = (message, tx) => {
          handled.push(message.body.paymentId);
          return inner(message, tx);
        };
        const deliver = (body: PaymentCaptured) =>
          ledgerProcessor(handler, {
            store: ledger.store,
            consumer: CONSUMER,
            performance: { precheck: precheck, coalesce: coalesce },
          }).processRecords(sqsEvent(sqsRecord(body)));

        const [x] = await deliver(first);
        expect(x?.status).toBe(RecordStatus.Failed);
        const unfinished = await ledger.store.find(inboxPk(CONSUMER, eventId));
        expect(unfinished).toMatchObject({ status: InboxStatus.Failed, steps: { charge: {} } });

        const [y] = await deliver(reused);
        expect(y?.status).toBe(RecordStatus.Failed);
        expect(y?.error).toBeInstanceOf(PayloadMismatchError);
        expect(String((y?.error as Error | undefined)?.message)).toContain(
          'not committed yet (FAILED',
        );
        if (precheck === Precheck.Before) expect(handled).not.toContain(reused.paymentId);
        expect(await balanceOf(accountId)).toBeUndefined();
        expect(await ledger.store.find(inboxPk(CONSUMER, eventId))).toEqual(unfinished);

        failing = false;
        const [again] = await deliver(first);
        expect(again?.status).toBe(RecordStatus.Processed);
        expect(charges).toEqual([first.paymentId]);
        expect(await balanceOf(accountId)).toBe(5_000);
        expect(await ledger.store.find(inboxPk(CONSUMER, eventId))).toMatchObject({
          status: InboxStatus.Completed,
          payloadHash: unfinished?.payloadHash,
        });
      });
    }
  }

  it('lets a step-less commit take over an unfinished entry of its own payload (a copy of the same message)', async () => {
    const event = payment({ accountId: `acc-${randomUUID()}`, amountCents: 5_000 });
    const charges: string[] = [];
    const withStep = payoutHandler(charges, () => true);
    const [x] = await ledgerProcessor(withStep, {
      store: ledger.store,
      consumer: CONSUMER,
      performance: { precheck: Precheck.Off },
    }).processRecords(sqsEvent(sqsRecord(event)));
    expect(x?.status).toBe(RecordStatus.Failed);

    // The same body, now handled by a version of the handler that runs no step for it.
    const stepLess: MessageHandler<PaymentCaptured> = ({ body }, tx) => ledger.credit(body, tx);
    const [copy] = await ledgerProcessor(stepLess, {
      store: ledger.store,
      consumer: CONSUMER,
      performance: { precheck: Precheck.Off },
    }).processRecords(sqsEvent(sqsRecord(event)));

    expect(copy?.status).toBe(RecordStatus.Processed);
    expect(await balanceOf(event.accountId)).toBe(5_000);
  });
});
