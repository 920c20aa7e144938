import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DeadLetterAttribute, InboxMetric, InboxStatus } from '../../src/constants/index.js';
import { TransactionLimitError } from '../../src/errors.js';
import {
  BusinessConditionFailedError,
  type DynamoDBInboxStore,
  type InboxOptions,
  type MessageHandler,
  Precheck,
  RecordStatus,
} from '../../src/index.js';
import { injectFault, loseResponse } from '../../tools/sdk/clientSpy.js';
import {
  ledgerProcessor,
  type PaymentCaptured,
  payment,
  useLedger,
} from '../support/ledgerFixture.js';
import { takeMessages } from '../support/receiveMessages.js';
import { countingMetrics, sqsEvent, sqsRecord } from '../support/sqsRecords.js';
import { withOptions } from '../support/withOptions.js';

const { aws, ledger } = useLedger();
const CONSUMER = 'coalesced';

/** A client of its own per test, its commands recorded. */
function connect() {
  const { client, sent, store } = ledger.ownStore();
  const transactions = () =>
    sent
      .filter((command) => command.name === 'TransactWriteItemsCommand')
      .map(
        ({ input }) =>
          input as { TransactItems: Record<string, { TableName?: string }>[] } & {
            ClientRequestToken?: string;
          },
      );
  const entriesIn = (transaction: ReturnType<typeof transactions>[number]) =>
    transaction.TransactItems.filter(
      (item) => Object.values(item)[0]?.TableName === ledger.tables.inbox,
    ).length;
  return { client, store, transactions, entriesIn };
}

function processor(
  store: DynamoDBInboxStore,
  handler: MessageHandler<PaymentCaptured> = ledger.applyPayment,
  overrides: Partial<InboxOptions<typeof PaymentCaptured>> = {},
) {
  return ledgerProcessor(
    handler,
    withOptions(
      { store, consumer: CONSUMER, performance: { coalesce: true, precheck: Precheck.Before } },
      overrides,
    ),
  );
}

const unique = (label: string) => `acc-${label}-${Math.random().toString(36).slice(2)}`;

const sumOf = (events: readonly PaymentCaptured[]) =>
  events.reduce((sum, event) => sum + event.amountCents, 0);

/** A cancellation with a TransactionConflict on the account's update, `None` elsewhere. */
function conflictOn(input: Record<string, unknown>, accountId: string) {
  const items = (input.TransactItems ?? []) as Record<string, unknown>[];
  const hot = updatesOf({ TransactItems: items }, accountId)[0];
  return new TransactionCanceledException({
    message: 'Transaction cancelled, please refer cancellation reasons for specific reasons',
    $metadata: {},
    CancellationReasons: items.map((item) => ({
      Code: item.Update !== undefined && item.Update === hot ? 'TransactionConflict' : 'None',
    })),
  });
}

/** The Updates of one account in a recorded transaction (lib-dynamodb's input, not marshalled). */
function updatesOf(transaction: { TransactItems: Record<string, unknown>[] }, accountId: string) {
  return transaction.TransactItems.flatMap((item) => {
    const update = item.Update as
      | {
          Key?: { accountId?: string };
          ConditionExpression?: string;
          ExpressionAttributeValues?: Record<string, unknown>;
        }
      | undefined;
    return update?.Key?.accountId === accountId ? [update] : [];
  });
}

describe('coalesced commits (coalesce: true)', () => {
  it('commits a batch of new messages in one TransactWriteItems with a ClientRequestToken, each message’s entry and writes in it', async () => {
    const { store, transactions, entriesIn } = connect();
    const events = Array.from({ length: 10 }, () => payment({ accountId: unique('one') }));

    const outcomes = await processor(store).processRecords(
      sqsEvent(...events.map((event) => sqsRecord(event))),
    );

    expect(outcomes.map(({ status }) => status)).toEqual(events.map(() => RecordStatus.Processed));
    const [shared, ...others] = transactions();
    expect(others).toEqual([]);
    expect(shared?.TransactItems).toHaveLength(30);
    expect(entriesIn(shared ?? { TransactItems: [] })).toBe(10);
    expect(shared?.ClientRequestToken).toMatch(/^[0-9a-f]{32}$/);
    for (const event of events) {
      expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
      expect(await ledger.inboxEntry(CONSUMER, event.eventId)).toMatchObject({
        status: InboxStatus.Completed,
      });
    }
  });

  it('waits for the batch’s read before its first flush, so that a known duplicate writes nothing and cancels no one', async () => {
    const { store, transactions, entriesIn } = connect();
    const known = payment({ accountId: unique('known') });
    await processor(store).process(sqsEvent(sqsRecord(known)));
    const fresh = [
      payment({ accountId: unique('fresh') }),
      payment({ accountId: unique('fresh') }),
    ];
    const before = transactions().length;

    const outcomes = await processor(store, ledger.applyPayment, {
      performance: { precheck: Precheck.Concurrent },
    }).processRecords(sqsEvent(...[known, ...fresh].map((event) => sqsRecord(event))));

    expect(outcomes.map(({ status }) => status)).toEqual([
      RecordStatus.Duplicate,
      RecordStatus.Processed,
      RecordStatus.Processed,
    ]);
    expect(transactions().slice(before).map(entriesIn)).toEqual([2]);
  });

  it('merges the credits of 20 payments to one account into one update: far fewer transactions than 20, the balance exact', async () => {
    const { store, transactions, entriesIn } = connect();
    const metrics = countingMetrics();
    const hot = unique('hot');
    const events = Array.from({ length: 20 }, (_, i) =>
      payment({ accountId: hot, amountCents: 101 + i }),
    );

    const outcomes = await processor(store, ledger.applyPayment, {
      observability: { metrics: metrics },
    }).processRecords(sqsEvent(...events.map((event) => sqsRecord(event))));

    expect(outcomes.map(({ status }) => status)).toEqual(events.map(() => RecordStatus.Processed));
    expect(transactions().length).toBeLessThanOrEqual(2);
    expect(
      transactions()
        .map(entriesIn)
        .reduce((sum, n) => sum + n, 0),
    ).toBe(20);
    for (const transaction of transactions()) expect(updatesOf(transaction, hot)).toHaveLength(1);
    expect(await ledger.balanceOf(hot)).toBe(sumOf(events));
    for (const event of events) {
      expect(await ledger.ledgerEntry(event.paymentId)).toBeDefined();
      expect(await ledger.inboxEntry(CONSUMER, event.eventId)).toMatchObject({
        status: InboxStatus.Completed,
      });
    }
    expect(metrics.count(InboxMetric.AggregatedUpdates)).toBe(20);
    expect(metrics.count(InboxMetric.AggregatedItems)).toBe(transactions().length);
  });

  it('keeps a duplicate a duplicate: its entry cancels the merged transaction, the others are sent again without it and commit, and the balance excludes it', async () => {
    const { store, transactions, entriesIn } = connect();
    const hot = unique('hot-duplicate');
    const known = payment({ accountId: hot, amountCents: 1_000 });
    await processor(store).process(sqsEvent(sqsRecord(known)));
    const fresh = Array.from({ length: 19 }, (_, i) =>
      payment({ accountId: hot, amountCents: 1 + i }),
    );
    const batch = [...fresh.slice(0, 7), known, ...fresh.slice(7)];
    const before = transactions().length;

    const outcomes = await processor(store, ledger.applyPayment, {
      performance: { precheck: Precheck.Off },
    }).processRecords(sqsEvent(...batch.map((event) => sqsRecord(event))));

    expect(outcomes.map(({ status }) => status)).toEqual(
      batch.map((event) => (event === known ? RecordStatus.Duplicate : RecordStatus.Processed)),
    );
    const [cancelled, ...again] = transactions().slice(before);
    expect(entriesIn(cancelled ?? { TransactItems: [] })).toBe(20);
    expect(updatesOf(cancelled ?? { TransactItems: [] }, hot)).toHaveLength(1);
    expect(again.map(entriesIn).reduce((sum, n) => sum + n, 0)).toBe(19);
    expect(again.length).toBeLessThanOrEqual(3);
    expect(await ledger.balanceOf(hot)).toBe(known.amountCents + sumOf(fresh));
  });

  it('never merges a conditional update of the hot account (a debit with a balance check, a credit of an existing account only): each commits in a turn of its own, with its own amount', async () => {
    const { store, transactions } = connect();
    const hot = unique('hot-conditional');
    await processor(store).process(
      sqsEvent(sqsRecord(payment({ accountId: hot, amountCents: 500 }))),
    );
    const credits = Array.from({ length: 4 }, (_, i) =>
      payment({ accountId: hot, amountCents: 10 + i }),
    );
    const debit = payment({ accountId: hot, amountCents: 300, paymentId: `debit-${unique('d')}` });
    const guarded = payment({
      accountId: hot,
      amountCents: 40,
      paymentId: `guarded-${unique('g')}`,
    });
    const conditions = {
      debit: 'balanceCents >= :amount',
      guarded: 'attribute_exists(accountId)',
    } as const;
    const handler: MessageHandler<PaymentCaptured> = async (message, tx) => {
      const [kind] = message.body.paymentId.split('-');
      if (kind === 'debit') {
        tx.update({
          TableName: ledger.tables.accounts,
          Key: { accountId: hot },
          UpdateExpression: 'ADD balanceCents :minus',
          ConditionExpression: conditions.debit,
          ExpressionAttributeValues: {
            ':minus': -message.body.amountCents,
            ':amount': message.body.amountCents,
          },
        });
      } else if (kind === 'guarded') {
        tx.update({
          TableName: ledger.tables.accounts,
          Key: { accountId: hot },
          UpdateExpression: 'ADD balanceCents :amount',
          ConditionExpression: conditions.guarded,
          ExpressionAttributeValues: { ':amount': message.body.amountCents },
        });
      } else {
        await ledger.applyPayment(message, tx);
      }
    };
    const batch = [
      credits[0],
      debit,
      credits[1],
      guarded,
      credits[2],
      credits[3],
    ] as PaymentCaptured[];
    const before = transactions().length;

    const outcomes = await processor(store, handler).processRecords(
      sqsEvent(...batch.map((event) => sqsRecord(event))),
    );

    expect(outcomes.map(({ status }) => status)).toEqual(batch.map(() => RecordStatus.Processed));
    const sent = transactions().slice(before);
    for (const [condition, amount] of [
      [conditions.debit, -debit.amountCents],
      [conditions.guarded, guarded.amountCents],
    ] as const) {
      const holding = sent.filter((transaction) =>
        updatesOf(transaction, hot).some((update) => update.ConditionExpression === condition),
      );
      expect(holding).toHaveLength(1);
      expect(updatesOf(holding[0] ?? { TransactItems: [] }, hot)).toEqual([
        expect.objectContaining({
          ExpressionAttributeValues: expect.objectContaining({
            [condition === conditions.debit ? ':minus' : ':amount']: amount,
          }),
        }),
      ]);
    }
    expect(sent.length).toBeGreaterThanOrEqual(3);
    expect(await ledger.balanceOf(hot)).toBe(
      500 + sumOf(credits) + guarded.amountCents - debit.amountCents,
    );
  });

  it('commits alone each message of a merged update DynamoDB refuses (an ADD to a text balance): those of the text balance fail on their own, the others commit', async () => {
    const { store, transactions, entriesIn } = connect();
    const poisoned = unique('text-balance');
    await aws.documentClient.send(
      new PutCommand({
        TableName: ledger.tables.accounts,
        Item: { accountId: poisoned, balanceCents: 'text' },
      }),
    );
    // MiniStack, as DynamoDB does, cancels with a ValidationError at the merged update's index;
    // DynamoDB Local refuses the whole request. Either way the transaction is split.
    const bad = Array.from({ length: 3 }, () => payment({ accountId: poisoned }));
    const good = Array.from({ length: 2 }, () => payment({ accountId: unique('fine') }));
    const batch = [bad[0], good[0], bad[1], good[1], bad[2]] as PaymentCaptured[];

    const outcomes = await processor(store).processRecords(
      sqsEvent(...batch.map((event) => sqsRecord(event))),
    );

    expect(outcomes.map(({ status }) => status)).toEqual(
      batch.map((event) => (bad.includes(event) ? RecordStatus.Failed : RecordStatus.Processed)),
    );
    for (const [at, event] of batch.entries()) {
      if (bad.includes(event)) expect(outcomes[at]?.error).toBeInstanceOf(TransactionLimitError);
    }
    const [merged, ...alone] = transactions();
    expect(updatesOf(merged ?? { TransactItems: [] }, poisoned)).toHaveLength(1);
    expect(alone.map(entriesIn).sort()).toEqual([1, 1, 1, 1, 1]);
    for (const event of good)
      expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
    for (const event of bad) {
      const entry = await ledger.inboxEntry(CONSUMER, event.eventId);
      expect(entry).toMatchObject({
        status: 'FAILED',
        lastError: { name: 'TransactionLimitError' },
      });
    }
  });

  it('splits what exceeds 100 items into several transactions', async () => {
    const { store, transactions, entriesIn } = connect();
    const events = Array.from({ length: 40 }, () => payment({ accountId: unique('many') }));

    const outcomes = await processor(store).processRecords(
      sqsEvent(...events.map((event) => sqsRecord(event))),
    );

    expect(outcomes.every(({ status }) => status === RecordStatus.Processed)).toBe(true);
    const sizes = transactions().map((transaction) => transaction.TransactItems.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(100);
    expect(
      transactions()
        .map(entriesIn)
        .reduce((sum, n) => sum + n, 0),
    ).toBe(40);
    expect(transactions()).toHaveLength(2);
  });

  it('settles a cancelled shared transaction member by member: a duplicate, a business-condition failure and a poison member each get their own outcome, and the others commit', async () => {
    const { store } = connect();
    const dlq = await aws.createQueue(aws.uniqueName('coalesced-dlq'));
    const known = payment({ accountId: unique('known') });
    await processor(store).process(sqsEvent(sqsRecord(known)));
    const missing = payment({ accountId: unique('missing') });
    const poison = payment({ accountId: unique('poison') });
    // An account whose balance is text: adding a number to it is refused (DynamoDB's
    // ValidationError for that item; DynamoDB Local refuses the whole request).
    await aws.documentClient.send(
      new PutCommand({
        TableName: ledger.tables.accounts,
        Item: { accountId: poison.accountId, balanceCents: 'text' },
      }),
    );
    const good = [payment({ accountId: unique('good') }), payment({ accountId: unique('good') })];
    const handler: MessageHandler<PaymentCaptured> = async (message, tx) => {
      if (message.body.accountId !== missing.accountId) return ledger.applyPayment(message, tx);
      tx.update({
        TableName: ledger.tables.accounts,
        Key: { accountId: missing.accountId },
        UpdateExpression: 'ADD balanceCents :amount',
        ConditionExpression: 'attribute_exists(accountId)',
        ExpressionAttributeValues: { ':amount': message.body.amountCents },
      });
    };
    const records = [known, missing, poison, ...good].map((event) => sqsRecord(event));

    const outcomes = await processor(store, handler, {
      performance: { precheck: Precheck.Off },
      deadLetter: { queueUrl: dlq.url, client: aws.sqs },
    }).processRecords(sqsEvent(...records));

    expect(outcomes.map(({ status }) => status)).toEqual([
      RecordStatus.Duplicate,
      RecordStatus.Failed,
      RecordStatus.DeadLettered,
      RecordStatus.Processed,
      RecordStatus.Processed,
    ]);
    expect(outcomes[1]?.error).toBeInstanceOf(BusinessConditionFailedError);
    expect(outcomes[2]?.error).toBeInstanceOf(TransactionLimitError);
    for (const event of good) {
      expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
    }
    expect(await ledger.balanceOf(known.accountId)).toBe(known.amountCents);
    expect(await ledger.inboxEntry(CONSUMER, missing.eventId)).toMatchObject({
      status: 'FAILED',
      lastError: { name: 'BusinessConditionFailedError' },
    });
    expect(await ledger.inboxEntry(CONSUMER, poison.eventId)).toMatchObject({
      status: 'FAILED',
      lastError: { name: 'TransactionLimitError' },
    });
    const [letter, ...more] = await takeMessages(aws.sqs, dlq.url, 1);
    expect(more).toEqual([]);
    expect(letter?.MessageAttributes?.[DeadLetterAttribute.Error]?.StringValue).toBe(
      'TransactionLimitError',
    );
  });

  it('sends a shared transaction whose answer was lost again with its ClientRequestToken: applied once, each member reported committed (lost answer injected)', async () => {
    const { client, store, transactions } = connect();
    const lost = loseResponse(client, 'TransactWriteItemsCommand');
    const events = Array.from({ length: 3 }, () => payment({ accountId: unique('lost') }));
    let runs = 0;
    const handler: MessageHandler<PaymentCaptured> = async (message, tx) => {
      runs++;
      await ledger.applyPayment(message, tx);
    };

    const outcomes = await processor(store, handler).processRecords(
      sqsEvent(...events.map((event) => sqsRecord(event))),
    );

    expect(lost.injected()).toBe(1);
    expect(outcomes.map(({ status }) => status)).toEqual(events.map(() => RecordStatus.Processed));
    expect(runs).toBe(3);
    const [first, again] = transactions();
    expect(transactions()).toHaveLength(2);
    expect(again?.ClientRequestToken).toBe(first?.ClientRequestToken);
    for (const event of events) {
      expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
    }
  });

  it('sends a merged transaction whose answer was lost again with the same items and token: the account credited once (lost answer injected)', async () => {
    const { client, store, transactions } = connect();
    const lost = loseResponse(client, 'TransactWriteItemsCommand');
    const hot = unique('hot-lost');
    const events = Array.from({ length: 3 }, (_, i) =>
      payment({ accountId: hot, amountCents: 7 + i }),
    );

    const outcomes = await processor(store).processRecords(
      sqsEvent(...events.map((event) => sqsRecord(event))),
    );

    expect(lost.injected()).toBe(1);
    expect(outcomes.map(({ status }) => status)).toEqual(events.map(() => RecordStatus.Processed));
    const [first, again, ...more] = transactions();
    expect(more).toEqual([]);
    expect(updatesOf(first ?? { TransactItems: [] }, hot)).toHaveLength(1);
    expect(again).toEqual(first);
    expect(await ledger.balanceOf(hot)).toBe(sumOf(events));
  });

  it('retries each message that shares a merged update DynamoDB cancelled for a conflict, and credits each once (TransactionConflict injected)', async () => {
    const { client, store, transactions } = connect();
    const hot = unique('hot-conflict');
    let cancelledInput: Record<string, unknown> = {};
    const conflicts = injectFault(
      client,
      'TransactWriteItemsCommand',
      () => conflictOn(cancelledInput, hot),
      1,
      (input) => {
        cancelledInput = input;
        return true;
      },
    );
    const events = Array.from({ length: 4 }, (_, i) =>
      payment({ accountId: hot, amountCents: 20 + i }),
    );

    const outcomes = await processor(store).processRecords(
      sqsEvent(...events.map((event) => sqsRecord(event))),
    );

    expect(conflicts.injected()).toBe(1);
    expect(outcomes.map(({ status }) => status)).toEqual(events.map(() => RecordStatus.Processed));
    expect(transactions().length).toBeGreaterThanOrEqual(2);
    expect(await ledger.balanceOf(hot)).toBe(sumOf(events));
  });

  it('keeps each FIFO group in order while its records share transactions with other groups', async () => {
    const { store, transactions } = connect();
    const groups = [unique('fifo'), unique('fifo')];
    const handler: MessageHandler<PaymentCaptured> = async ({ body }, tx) => {
      // Each record of a group must follow the one before it: its sequence is its amount.
      tx.update({
        TableName: ledger.tables.accounts,
        Key: { accountId: body.accountId },
        UpdateExpression: 'SET lastSequence = :sequence',
        ConditionExpression: 'attribute_not_exists(lastSequence) OR lastSequence = :previous',
        ExpressionAttributeValues: {
          ':sequence': body.amountCents,
          ':previous': body.amountCents - 1,
        },
      });
    };
    const records = [1, 2, 3].flatMap((sequence) =>
      groups.map((accountId) =>
        sqsRecord(payment({ accountId, amountCents: sequence }), { fifo: { groupId: accountId } }),
      ),
    );

    const outcomes = await processor(store, handler).processRecords(sqsEvent(...records));

    expect(outcomes.map(({ status }) => status)).toEqual(records.map(() => RecordStatus.Processed));
    expect(transactions()).toHaveLength(3);
  });

  it('shares a transaction between messages whose table’s key schema it may not read (DescribeTable denied, injected), asking once', async () => {
    const { client, store, transactions, entriesIn } = connect();
    const denied = injectFault(client, 'DescribeTableCommand', () =>
      Object.assign(new Error('not authorized to perform: dynamodb:DescribeTable'), {
        name: 'AccessDeniedException',
        $metadata: { httpStatusCode: 400 },
      }),
    );
    const events = Array.from({ length: 3 }, () => payment({ accountId: unique('denied') }));

    const outcomes = await processor(store, ledger.applyPayment).processRecords(
      sqsEvent(...events.map((event) => sqsRecord(event))),
    );

    expect(outcomes.every(({ status }) => status === RecordStatus.Processed)).toBe(true);
    expect(transactions().map(entriesIn)).toEqual([3]);
    expect(denied.injected()).toBe(1);
    for (const event of events) {
      expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
    }
  });

  it('shares a transaction between messages whose handlers ran a step, each member fenced by its own lease', async () => {
    const { store, transactions, entriesIn } = connect();
    const events = Array.from({ length: 3 }, () => payment({ accountId: unique('steps') }));
    // The handlers end together, once every step has run, so that their commits meet.
    let stepped = 0;
    let allStepped: () => void = () => {};
    const together = new Promise<void>((resolve) => {
      allStepped = resolve;
    });
    const handler: MessageHandler<PaymentCaptured> = async (message, tx) => {
      await message.step('note', () => ({ noted: message.body.eventId }));
      if (++stepped === events.length) allStepped();
      await together;
      await ledger.applyPayment(message, tx);
    };

    const outcomes = await processor(store, handler).processRecords(
      sqsEvent(...events.map((event) => sqsRecord(event))),
    );

    expect(outcomes.every(({ status }) => status === RecordStatus.Processed)).toBe(true);
    expect(transactions().map(entriesIn)).toEqual([3]);
    const fenced = transactions()[0]?.TransactItems.filter((item) => 'Update' in item).length;
    expect(fenced).toBeGreaterThanOrEqual(3);
    for (const event of events) {
      const entry = await ledger.inboxEntry(CONSUMER, event.eventId);
      expect(entry).toMatchObject({ status: InboxStatus.Completed });
      expect(entry).not.toHaveProperty('leaseOwner');
    }
  });
});
