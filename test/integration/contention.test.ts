import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it, vi } from 'vitest';
import { ConflictModel } from '../../bench/conflictModel.js';
import { TransactionLimitError } from '../../src/errors.js';
import { RecordStatus } from '../../src/index.js';
import { ledgerProcessor, payment, useLedger } from '../support/ledgerFixture.js';
import { sqsEvent, sqsRecord } from '../support/sqsRecords.js';

// DynamoDB Local refuses a transaction whose update fails on an item's data as a whole request
// (ValidationException); DynamoDB and MiniStack cancel it with a reason at that item's index.
const refusesTheWholeRequest = inject('aws').backend.startsWith('DynamoDB: DynamoDB Local');

const { aws, ledger } = useLedger();

/**
 * DynamoDB's transaction conflict rules on a client (modelled: no emulator implements them): a
 * transaction holds its items until it answers; another that touches one is cancelled with
 * `TransactionConflict`. Counts the requests it refused.
 */
function modelConflicts(client: DynamoDBClient) {
  const { tables } = ledger;
  const model = new ConflictModel(
    new Map([
      [tables.inbox, ['pk']],
      [tables.accounts, ['accountId']],
      [tables.entries, ['paymentId']],
      [tables.stock, ['sku']],
    ]),
  );
  let refused = 0;
  let transactions = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      if (context.commandName === 'TransactWriteItemsCommand') transactions++;
      const admission = model.admit(String(context.commandName), input);
      if (admission.refusal) {
        refused++;
        throw admission.refusal;
      }
      try {
        return await next(args);
      } finally {
        admission.release();
      }
    },
    { step: 'initialize', name: 'conflictModel' },
  );
  return { refused: () => refused, transactions: () => transactions };
}

describe('a batch on a hot item (DynamoDB’s conflict rules modelled: no emulator implements them)', () => {
  it('commits twenty payments to one account in one transaction crediting it once, never conflicting with itself', async () => {
    const { client, store } = ledger.ownStore();
    const conflicts = modelConflicts(client);
    const accountId = `acc-hot-${Math.random()}`;
    const events = Array.from({ length: 20 }, () => payment({ accountId }));

    const outcomes = await ledgerProcessor(ledger.applyPayment, {
      store,
      consumer: 'hot',
    }).processRecords(sqsEvent(...events.map((event) => sqsRecord(event))));

    expect(outcomes.map(({ status }) => status)).toEqual(events.map(() => RecordStatus.Processed));
    expect(conflicts.refused()).toBe(0);
    expect(conflicts.transactions()).toBe(1);
    expect(await ledger.balanceOf(accountId)).toBe(
      events.reduce((sum, event) => sum + event.amountCents, 0),
    );
  });

  it('commits a payment that reaches a hot account while its transaction is in flight in the next one, after it answered', async () => {
    const { client, store } = ledger.ownStore();
    const conflicts = modelConflicts(client);
    const accountId = `acc-late-${Math.random()}`;
    const [early, late] = [payment({ accountId }), payment({ accountId })];
    let sent: () => void = () => {};
    const earlySent = new Promise<void>((resolve) => {
      sent = resolve;
    });
    let transactions = 0;
    let handled: () => void = () => {};
    const lateHandled = new Promise<void>((resolve) => {
      handled = resolve;
    });
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
        const first = transactions === 0;
        transactions++;
        sent();
        const output = await next(args);
        // The early transaction answers only once the late commit is queued behind it.
        if (first) await lateHandled.then(() => new Promise((resolve) => setTimeout(resolve, 20)));
        return output;
      },
      { step: 'initialize', name: 'earlyHeld' },
    );

    const outcomes = await ledgerProcessor(
      async (message, tx) => {
        // The later payment's handler ends while the earlier one's transaction is in flight.
        if (message.body.eventId === late.eventId) await earlySent;
        await ledger.applyPayment(message, tx);
        if (message.body.eventId === late.eventId) handled();
      },
      { store, consumer: 'late', performance: { precheck: 'off' } },
    ).processRecords(sqsEvent(sqsRecord(early), sqsRecord(late)));

    expect(outcomes.map(({ status }) => status)).toEqual([
      RecordStatus.Processed,
      RecordStatus.Processed,
    ]);
    expect(conflicts.refused()).toBe(0);
    expect(conflicts.transactions()).toBe(2);
    expect(await ledger.balanceOf(accountId)).toBe(early.amountCents + late.amountCents);
  });

  it('lets two messages that Put one item take turns, the item found by its table’s key schema', async () => {
    const { client, store } = ledger.ownStore();
    const conflicts = modelConflicts(client);
    const sku = `sku-latest-${Math.random()}`;
    const events = Array.from({ length: 5 }, () =>
      payment({ accountId: `acc-put-${Math.random()}` }),
    );

    const outcomes = await ledgerProcessor(
      async ({ body }, tx) => {
        tx.put({ TableName: ledger.tables.stock, Item: { sku, lastPaymentId: body.paymentId } });
      },
      { store, consumer: 'puts', performance: { precheck: 'off' } },
    ).processRecords(sqsEvent(...events.map((event) => sqsRecord(event))));

    expect(outcomes.every(({ status }) => status === RecordStatus.Processed)).toBe(true);
    expect(conflicts.refused()).toBe(0);
  });

  it('commits payments to distinct accounts at once, none waiting for another', async () => {
    const { client, store } = ledger.ownStore();
    modelConflicts(client);
    let inFlight = 0;
    let mostInFlight = 0;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
        mostInFlight = Math.max(mostInFlight, ++inFlight);
        try {
          return await next(args);
        } finally {
          inFlight--;
        }
      },
      { step: 'initialize', name: 'countInFlight' },
    );
    const events = Array.from({ length: 10 }, (_, n) =>
      payment({ accountId: `acc-cold-${n}-${Math.random()}` }),
    );

    const outcomes = await ledgerProcessor(ledger.applyPayment, {
      store,
      consumer: 'cold',
      performance: { precheck: 'off' },
    }).processRecords(sqsEvent(...events.map((event) => sqsRecord(event))));

    expect(outcomes.every(({ status }) => status === RecordStatus.Processed)).toBe(true);
    expect(mostInFlight).toBe(events.length);
  });

  it('acknowledges a copy in the same batch as a duplicate once its original commits, without a conflict or a transaction of its own', async () => {
    const { client, store } = ledger.ownStore();
    const conflicts = modelConflicts(client);
    const event = payment({ accountId: `acc-copy-${Math.random()}` });

    const outcomes = await ledgerProcessor(ledger.applyPayment, {
      store,
      consumer: 'copies',
      performance: { precheck: 'off' },
    }).processRecords(sqsEvent(sqsRecord(event), sqsRecord(event)));

    expect(outcomes.map(({ status }) => status)).toEqual([
      RecordStatus.Processed,
      RecordStatus.Duplicate,
    ]);
    expect(conflicts.refused()).toBe(0);
    expect(conflicts.transactions()).toBe(1);
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
  });

  it('sends a commit alone with the items prepareCommit built, building and checking none again, and settles a later copy its entry refused as a duplicate', async () => {
    const { sent, store } = ledger.ownStore();
    const prepare = vi.spyOn(store, 'prepareCommit');
    const buildAgain = vi.spyOn(store, 'commit');
    const event = payment({ accountId: `acc-lone-${Math.random()}` });
    const processor = ledgerProcessor(ledger.applyPayment, {
      store,
      consumer: 'lone',
      performance: { precheck: 'off' },
    });

    const first = await processor.processRecords(sqsEvent(sqsRecord(event)));
    const copy = await processor.processRecords(sqsEvent(sqsRecord(event)));

    expect([...first, ...copy].map(({ status }) => status)).toEqual([
      RecordStatus.Processed,
      RecordStatus.Duplicate,
    ]);
    expect(buildAgain).not.toHaveBeenCalled();
    const transactions = sent.filter(({ name }) => name === 'TransactWriteItemsCommand');
    const built = await Promise.all(prepare.mock.results.map(({ value }) => value));
    expect(transactions.map(({ input }) => input.TransactItems)).toEqual(
      built.map(({ items }) => items),
    );
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
  });

  it('names the operation DynamoDB refused in a commit sent alone (an ADD to a text balance), counting from the first after the entry', async () => {
    const accountId = `acc-text-${Math.random()}`;
    await aws.documentClient.send(
      new PutCommand({
        TableName: ledger.tables.accounts,
        Item: { accountId, balanceCents: 'text' },
      }),
    );

    const [outcome] = await ledgerProcessor(ledger.applyPayment, {
      store: ledger.ownStore().store,
      consumer: 'refused',
    }).processRecords(sqsEvent(sqsRecord(payment({ accountId }))));

    expect(outcome?.status).toBe(RecordStatus.Failed);
    expect(outcome?.error).toBeInstanceOf(TransactionLimitError);
    // MiniStack, as DynamoDB does, cancels at the update's index (reason 0 is the entry's);
    // DynamoDB Local refuses the whole request, so there is no index to name.
    expect(String(outcome?.error)).toContain(
      refusesTheWholeRequest
        ? 'DynamoDB rejected the request'
        : `Update #0 on ${ledger.tables.accounts}`,
    );
  });
});
