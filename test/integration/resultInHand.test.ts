import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { InboxStatus, inboxPk } from '../../src/constants/index.js';
import { type MessageHandler, RecordStatus } from '../../src/index.js';
import { injectFault } from '../../tools/sdk/clientSpy.js';
import {
  ledgerProcessor,
  type PaymentCaptured,
  payment,
  useLedger,
} from '../support/ledgerFixture.js';
import { sqsEvent, sqsRecord } from '../support/sqsRecords.js';

const { ledger } = useLedger();
const CONSUMER = 'charger';

const throttled = () =>
  new ProvisionedThroughputExceededException({
    message: 'injected: the level of configured provisioned throughput for the table was exceeded',
    $metadata: { httpStatusCode: 400 },
  });

/** A journal write: the only UpdateItem that sets one step of the journal. */
const isJournalWrite = (input: Record<string, unknown>) =>
  input.UpdateExpression === 'SET #steps.#step = :step';

/** The journal write of one step. */
const journalOf = (stepName: string) => (input: Record<string, unknown>) =>
  isJournalWrite(input) &&
  (input.ExpressionAttributeNames as Record<string, string> | undefined)?.['#step'] === stepName;

/** A release: the UpdateItem that sets the entry FAILED. */
const isRelease = (input: Record<string, unknown>) =>
  String(input.UpdateExpression).startsWith('SET #status = :failed');

/** One step (a charge), then a credit in `tx`. */
function chargingHandler(charges: string[]): MessageHandler<PaymentCaptured> {
  return async ({ body, step }, tx) => {
    await step('charge', () => {
      charges.push(body.paymentId);
      return { chargeId: `ch-${charges.length}` };
    });
    ledger.credit(body, tx);
  };
}

/** A store whose client throttles the writes `matches` picks, `times` times at most. */
function throttledStore(
  times: number,
  matches: (input: Record<string, unknown>) => boolean = isJournalWrite,
) {
  const { client, store } = ledger.ownStore();
  const fault = injectFault(client, 'UpdateItemCommand', throttled, times, matches);
  return { store, fault };
}

describe('a result in hand is journaled before anything can run its step again', () => {
  it('journals the result when every try of its journal write was throttled, and the rerun of the handler replays it instead of running the step again (injected throttling)', async () => {
    const event = payment({ accountId: `acc-${randomUUID()}` });
    const charges: string[] = [];
    const { store, fault } = throttledStore(3);

    const [outcome] = await ledgerProcessor(chargingHandler(charges), {
      store,
      consumer: CONSUMER,
      reliability: { transactionAttempts: 3 },
    }).processRecords(sqsEvent(sqsRecord(event)));

    expect(fault.injected()).toBe(3);
    expect(outcome?.status).toBe(RecordStatus.Processed);
    expect(charges).toEqual([event.paymentId]);
    expect(await ledger.store.find(inboxPk(CONSUMER, event.eventId))).toMatchObject({
      status: InboxStatus.Completed,
      attempts: 1,
      steps: { charge: {} },
    });
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
  });

  it('carries the result with the release when its journal write never landed in the invocation, so the next delivery replays it (injected throttling)', async () => {
    const event = payment({ accountId: `acc-${randomUUID()}` });
    const charges: string[] = [];
    const { store, fault } = throttledStore(Number.POSITIVE_INFINITY);

    const [failed] = await ledgerProcessor(chargingHandler(charges), {
      store,
      consumer: CONSUMER,
      reliability: { transactionAttempts: 2 },
    }).processRecords(sqsEvent(sqsRecord(event)));

    expect(failed?.status).toBe(RecordStatus.Failed);
    expect(fault.injected()).toBe(4);
    expect(await ledger.store.find(inboxPk(CONSUMER, event.eventId))).toMatchObject({
      status: InboxStatus.Failed,
      lastError: { name: 'TransientStoreError' },
      steps: { charge: {} },
    });

    const [again] = await ledgerProcessor(chargingHandler(charges), {
      store: ledger.store,
      consumer: CONSUMER,
    }).processRecords(sqsEvent(sqsRecord(event)));

    expect(again?.status).toBe(RecordStatus.Processed);
    expect(charges).toEqual([event.paymentId]);
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
  });

  it('waits for a sibling step a failed run left running, so the rerun replays it instead of running it alongside (injected throttling)', async () => {
    const event = payment({ accountId: `acc-${randomUUID()}` });
    const runs = { fast: 0, slow: 0 };
    const handler: MessageHandler<PaymentCaptured> = async ({ body, step }, tx) => {
      await Promise.all([
        step('fast', () => ++runs.fast),
        step('slow', async () => {
          runs.slow++;
          await sleep(1_000);
          return runs.slow;
        }),
      ]);
      ledger.credit(body, tx);
    };
    const { store, fault } = throttledStore(3, journalOf('fast'));

    const [outcome] = await ledgerProcessor(handler, {
      store,
      consumer: CONSUMER,
      reliability: { transactionAttempts: 3 },
    }).processRecords(sqsEvent(sqsRecord(event)));

    expect(fault.injected()).toBe(3);
    expect(outcome?.status).toBe(RecordStatus.Processed);
    expect(runs).toEqual({ fast: 1, slow: 1 });
  });

  it('retries the release that carries a result in hand, as the journal write it replaces (injected throttling)', async () => {
    const event = payment({ accountId: `acc-${randomUUID()}` });
    const charges: string[] = [];
    let releases = 0;
    // Every journal write (2 runs, 2 tries each), and the release's first try.
    const { store } = throttledStore(Number.POSITIVE_INFINITY, (input) => {
      if (isJournalWrite(input)) return true;
      return isRelease(input) && releases++ === 0;
    });

    const [failed] = await ledgerProcessor(chargingHandler(charges), {
      store,
      consumer: CONSUMER,
      reliability: { transactionAttempts: 2 },
    }).processRecords(sqsEvent(sqsRecord(event)));

    expect(failed?.status).toBe(RecordStatus.Failed);
    expect(releases).toBe(2);
    expect(await ledger.store.find(inboxPk(CONSUMER, event.eventId))).toMatchObject({
      status: InboxStatus.Failed,
      steps: { charge: {} },
    });
  });

  it('counts a step whose journal write is in flight once against the journal limit, beside a sibling (a slow write, injected)', async () => {
    const event = payment({ accountId: `acc-${randomUUID()}` });
    const { client, store } = ledger.ownStore();
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as Record<string, unknown>;
        if (context.commandName === 'UpdateItemCommand' && journalOf('s7')(input)) await sleep(300);
        return next(args);
      },
      { step: 'initialize', name: 'slowJournalOfS7', priority: 'high' },
    );
    // Eight results of about 30 KB: 240 KB in all, under the 256 KiB journal limit.
    const result = (n: number) => `${'x'.repeat(30_000)}${n}`;
    const handler: MessageHandler<PaymentCaptured> = async ({ body, step }, tx) => {
      for (let n = 1; n <= 6; n++) await step(`s${n}`, () => result(n));
      await Promise.all([
        step('s7', () => result(7)),
        step('s8', async () => {
          await sleep(50);
          return result(8);
        }),
      ]);
      ledger.credit(body, tx);
    };

    const [outcome] = await ledgerProcessor(handler, { store, consumer: CONSUMER }).processRecords(
      sqsEvent(sqsRecord(event)),
    );

    expect(outcome?.error).toBeUndefined();
    expect(outcome?.status).toBe(RecordStatus.Processed);
  });
});
