import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  BusinessConditionFailedError,
  DeadLetterAttribute,
  type DynamoDBInboxStore,
  type InboxOptions,
  InboxStatus,
  type MessageHandler,
  Precheck,
  RecordStatus,
  TransactionLimitError,
} from '../../src/index.js';
import { injectFault, loseResponse } from '../../tools/sdk/clientSpy.js';
import {
  ledgerProcessor,
  type PaymentCaptured,
  payment,
  useLedger,
} from '../support/ledgerFixture.js';
import { takeMessages } from '../support/receiveMessages.js';
import { sqsEvent, sqsRecord } from '../support/sqsRecords.js';

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
  return ledgerProcessor(handler, {
    store,
    consumer: CONSUMER,
    coalesce: true,
    precheck: Precheck.Before,
    ...overrides,
  });
}

const unique = (label: string) => `acc-${label}-${Math.random().toString(36).slice(2)}`;

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
      precheck: Precheck.Concurrent,
    }).processRecords(sqsEvent(...[known, ...fresh].map((event) => sqsRecord(event))));

    expect(outcomes.map(({ status }) => status)).toEqual([
      RecordStatus.Duplicate,
      RecordStatus.Processed,
      RecordStatus.Processed,
    ]);
    expect(transactions().slice(before).map(entriesIn)).toEqual([2]);
  });

  it('keeps two messages that touch one item out of one transaction, and commits both', async () => {
    const { store, transactions, entriesIn } = connect();
    const shared = unique('same');
    const events = [
      payment({ accountId: shared }),
      payment({ accountId: shared }),
      payment({ accountId: unique('other') }),
    ];

    const outcomes = await processor(store).processRecords(
      sqsEvent(...events.map((event) => sqsRecord(event))),
    );

    expect(outcomes.every(({ status }) => status === RecordStatus.Processed)).toBe(true);
    expect(transactions().map(entriesIn)).toEqual([2, 1]);
    expect(await ledger.balanceOf(shared)).toBe(
      (events[0]?.amountCents ?? 0) + (events[1]?.amountCents ?? 0),
    );
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
      precheck: Precheck.Off,
      deadLetterQueueUrl: dlq.url,
      sqsClient: aws.sqs,
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
    expect(await ledger.inboxEntry(CONSUMER, missing.eventId)).toBeUndefined();
    expect(await ledger.inboxEntry(CONSUMER, poison.eventId)).toBeUndefined();
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
