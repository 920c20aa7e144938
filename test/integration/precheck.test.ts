import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  type DynamoDBInboxStore,
  type InboxOptions,
  type MessageHandler,
  Precheck,
  RecordStatus,
} from '../../src/index.js';
import { injectFault } from '../../tools/sdk/clientSpy.js';
import {
  ledgerProcessor,
  type PaymentCaptured,
  payment,
  useLedger,
} from '../support/ledgerFixture.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';

const { ledger } = useLedger();
const CONSUMER = 'precheck';

/** A client of its own per test, with its commands recorded and a signal when a read answers. */
function connect() {
  const { client, sent, store } = ledger.ownStore();
  const events: string[] = [];
  let readAnswered: () => void = () => {};
  const answered = new Promise<void>((resolve) => {
    readAnswered = resolve;
  });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName === 'BatchGetItemCommand') {
        events.push('read answered');
        readAnswered();
      }
      return result;
    },
    { step: 'initialize', name: 'signalReads' },
  );
  const named = (name: string) => sent.filter((command) => command.name === `${name}Command`);
  return { client, store, sent, named, events, answered };
}

function processor(
  store: DynamoDBInboxStore,
  handler: MessageHandler<PaymentCaptured>,
  overrides: Partial<InboxOptions<typeof PaymentCaptured>> = {},
) {
  return ledgerProcessor(handler, { store, consumer: CONSUMER, ...overrides });
}

/** A payment already committed by an earlier batch, and a fresh account for it. */
async function committedPayment() {
  const event = payment({ accountId: `acc-pre-${Math.random()}` });
  const { store } = connect();
  await processor(store, ledger.applyPayment).process(sqsEvent(sqsRecord(event)));
  return event;
}

describe('the batch pre-check read (default: concurrent)', () => {
  it('reads the batch’s keys with one consistent BatchGetItem and commits each new message with one transaction', async () => {
    const { store, named } = connect();
    // Distinct accounts: commits crediting one account share a transaction.
    const events = Array.from({ length: 5 }, (_, n) => payment({ accountId: `acc-pre-new-${n}` }));

    const outcomes = await processor(store, ledger.applyPayment).processRecords(
      sqsEvent(...events.map((event) => sqsRecord(event))),
    );

    expect(outcomes.every(({ status }) => status === RecordStatus.Processed)).toBe(true);
    const reads = named('BatchGetItem');
    expect(reads).toHaveLength(1);
    const requestItems = (reads[0]?.input.RequestItems ?? {}) as Record<string, unknown>;
    const request = requestItems[ledger.tables.inbox];
    expect(request).toMatchObject({ ConsistentRead: true });
    expect((request as { Keys: unknown[] }).Keys).toHaveLength(5);
    expect(named('TransactWriteItems')).toHaveLength(5);
    expect(named('GetItem')).toHaveLength(0);
  });

  it('spares a duplicate its commit when the read answered while its handler ran, and the handler’s run has no effect', async () => {
    const known = await committedPayment();
    const fresh = payment({ accountId: known.accountId });
    const { store, named, answered } = connect();
    const ran: string[] = [];
    const handler: MessageHandler<PaymentCaptured> = async (message, tx) => {
      ran.push(message.body.eventId);
      await answered;
      await setImmediatePromise(); // the answer has reached the processor
      await ledger.applyPayment(message, tx);
    };

    const outcomes = await processor(store, handler).processRecords(
      sqsEvent(sqsRecord(known), sqsRecord(fresh)),
    );

    expect(outcomes.map(({ status }) => status)).toEqual([
      RecordStatus.Duplicate,
      RecordStatus.Processed,
    ]);
    expect(ran.sort()).toEqual([known.eventId, fresh.eventId].sort());
    expect(named('TransactWriteItems')).toHaveLength(1);
    expect(await ledger.balanceOf(known.accountId)).toBe(known.amountCents + fresh.amountCents);
  });

  it('skips the handler of a duplicate that starts after the read answered', async () => {
    const known = await committedPayment();
    const fresh = payment({ accountId: known.accountId });
    const { store, answered } = connect();
    const ran: string[] = [];
    const handler: MessageHandler<PaymentCaptured> = async (message, tx) => {
      ran.push(message.body.eventId);
      await answered;
      await ledger.applyPayment(message, tx);
    };

    const outcomes = await processor(store, handler, {
      performance: { concurrency: 1 },
    }).processRecords(sqsEvent(sqsRecord(fresh), sqsRecord(known)));

    expect(outcomes.map(({ status }) => status)).toEqual([
      RecordStatus.Processed,
      RecordStatus.Duplicate,
    ]);
    expect(ran).toEqual([fresh.eventId]);
  });

  it('skips the handler of a FIFO copy of a message its own batch committed earlier in the group', async () => {
    const event = payment({ accountId: `acc-pre-fifo-${Math.random()}` });
    const { store, named } = connect();
    const ran: string[] = [];
    const handler: MessageHandler<PaymentCaptured> = async (message, tx) => {
      ran.push(message.messageId);
      await ledger.applyPayment(message, tx);
    };
    const fifo = { groupId: event.accountId };
    const first = sqsRecord(event, { fifo });

    const outcomes = await processor(store, handler).processRecords(
      sqsEvent(first, sqsRecord(event, { fifo })),
    );

    expect(outcomes.map(({ status }) => status)).toEqual([
      RecordStatus.Processed,
      RecordStatus.Duplicate,
    ]);
    expect(ran).toEqual([first.messageId]);
    expect(named('TransactWriteItems')).toHaveLength(1);
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
  });

  it('reads nothing first for a batch of one record: its commit is its check', async () => {
    const known = await committedPayment();
    const { store, named } = connect();

    const [outcome] = await processor(store, ledger.applyPayment).processRecords(
      sqsEvent(sqsRecord(known)),
    );

    expect(outcome?.status).toBe(RecordStatus.Duplicate);
    expect(named('BatchGetItem')).toHaveLength(0);
    expect(named('TransactWriteItems')).toHaveLength(1);
  });

  it('reads more than 100 keys in BatchGetItems of at most 100, and finds a duplicate among them', async () => {
    const known = await committedPayment();
    const events = Array.from({ length: 149 }, (_, n) =>
      payment({ accountId: `acc-pre-many-${n}` }),
    );
    const { store, named } = connect();

    const outcomes = await processor(store, ledger.applyPayment, {
      performance: { precheck: Precheck.Before },
    }).processRecords(sqsEvent(...[...events, known].map((event) => sqsRecord(event))));

    const reads = named('BatchGetItem').map(
      ({ input }) =>
        (
          (input.RequestItems as Record<string, { Keys: unknown[] }>)[ledger.tables.inbox]?.Keys ??
          []
        ).length,
    );
    expect(reads.sort((a, b) => a - b)).toEqual([50, 100]);
    expect(outcomes.filter(({ status }) => status === RecordStatus.Processed)).toHaveLength(149);
    expect(outcomes.at(-1)?.status).toBe(RecordStatus.Duplicate);
    expect(named('TransactWriteItems')).toHaveLength(149);
  });
});

describe('the pre-check read awaited before the handlers (precheck: before)', () => {
  it('runs no duplicate’s handler, and no handler before the read answered', async () => {
    const known = await committedPayment();
    const fresh = payment({ accountId: known.accountId });
    const { store, events, named } = connect();
    const handler: MessageHandler<PaymentCaptured> = async (message, tx) => {
      events.push(`handler ${message.body.eventId}`);
      await ledger.applyPayment(message, tx);
    };

    const outcomes = await processor(store, handler, {
      performance: { precheck: Precheck.Before },
    }).processRecords(sqsEvent(sqsRecord(known), sqsRecord(fresh)));

    expect(outcomes.map(({ status }) => status)).toEqual([
      RecordStatus.Duplicate,
      RecordStatus.Processed,
    ]);
    expect(events).toEqual(['read answered', `handler ${fresh.eventId}`]);
    expect(named('TransactWriteItems')).toHaveLength(1);
  });
});

describe('a pre-check read that fails (injected: no emulator throttles or denies)', () => {
  it('leaves duplicates to the commit’s condition when the read is throttled (injected), and every message settles', async () => {
    const known = await committedPayment();
    const fresh = payment({ accountId: known.accountId });
    const { client, store } = connect();
    const throttled = () =>
      new ProvisionedThroughputExceededException({
        message: 'The level of configured provisioned throughput for the table was exceeded',
        $metadata: { httpStatusCode: 400 },
      });
    const fault = injectFault(client, 'BatchGetItemCommand', throttled);

    const outcomes = await processor(store, ledger.applyPayment, {
      performance: { precheck: Precheck.Before },
    }).processRecords(sqsEvent(sqsRecord(known), sqsRecord(fresh)));

    expect(fault.injected()).toBeGreaterThan(0);
    expect(outcomes.map(({ status }) => status)).toEqual([
      RecordStatus.Duplicate,
      RecordStatus.Processed,
    ]);
    expect(await ledger.balanceOf(known.accountId)).toBe(known.amountCents + fresh.amountCents);
  });

  it('warns once per container, naming the permission, when the read is denied (injected)', async () => {
    const { client, store } = connect();
    const denied = () =>
      Object.assign(new Error('User is not authorized to perform: dynamodb:BatchGetItem'), {
        name: 'AccessDeniedException',
        $metadata: { httpStatusCode: 400 },
      });
    injectFault(client, 'BatchGetItemCommand', denied);
    const logger = recordingLogger();
    const run = processor(store, ledger.applyPayment, {
      observability: { logger: logger },
      performance: { precheck: Precheck.Before },
    });

    for (let batch = 0; batch < 2; batch++) {
      const events = [payment(), payment()].map((event) => sqsRecord(event));
      const outcomes = await run.processRecords(sqsEvent(...events));
      expect(outcomes.every(({ status }) => status === RecordStatus.Processed)).toBe(true);
    }

    const warnings = logger.lines.filter(
      (line) => line.level === 'warn' && line.message.includes('pre-check read'),
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toContain('dynamodb:BatchGetItem');
    expect(warnings[0]?.extra).toMatchObject({ errorName: 'AccessDeniedException' });
  });
});
