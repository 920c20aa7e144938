import { createHash } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkInvariants } from '../../tools/local/checkInvariants.js';
import { planDemoTraffic } from '../../tools/local/demoTraffic.js';
import { testAws } from '../harness/aws.js';

const aws = testAws();
const tables = {
  accounts: aws.uniqueName('inv-accounts'),
  entries: aws.uniqueName('inv-entries'),
  stock: aws.uniqueName('inv-stock'),
  orders: aws.uniqueName('inv-orders'),
  inbox: aws.uniqueName('inv-inbox'),
};
const consumers = { ledger: 'ledger', inventory: 'inventory' };
let dlqs: { ledger: string; inventory: string };

beforeAll(async () => {
  await Promise.all([
    aws.createTable(tables.accounts, [['accountId', 'HASH']]),
    aws.createTable(tables.entries, [['paymentId', 'HASH']]),
    aws.createTable(tables.stock, [['sku', 'HASH']]),
    aws.createTable(tables.orders, [['orderId', 'HASH']]),
    aws.createTable(tables.inbox, [['pk', 'HASH']]),
  ]);
  dlqs = {
    ledger: (await aws.createQueue(aws.uniqueName('inv-ledger-dlq'))).url,
    inventory: (await aws.createQueue(aws.uniqueName('inv-inventory-dlq'))).url,
  };
});
afterAll(() => aws.cleanup());

describe('the npm start invariant report', () => {
  const plan = planDemoTraffic(20, 0.2, 5);
  const put = (table: string, item: Record<string, unknown>) =>
    aws.documentClient.send(new PutCommand({ TableName: table, Item: item }));
  const check = () =>
    checkInvariants(
      plan,
      { ...tables, deadLetterQueues: dlqs, inbox: { table: tables.inbox, consumers } },
      { dynamodb: aws.dynamodb, sqs: aws.sqs },
    );
  const failing = async () =>
    (await check()).filter((result) => !result.holds).map((result) => result.name);
  // Events its upstream delivered once and twice: an "exactly" check alters a once-delivered
  // one, so the per-event invariant of the twice-delivered ones stays out of it.
  const bodies = plan.messages.map((m) => m.body);
  const twice = (body: string) => bodies.indexOf(body) !== bodies.lastIndexOf(body);
  const onceDelivered = <T>(events: readonly T[]) =>
    events.filter((e) => !twice(JSON.stringify(e)));
  /** Credits an account once more, as a payment applied twice would; returns the undo. */
  const creditAgain = async (accountId: string, amountCents: number) => {
    const { Item } = await aws.documentClient.send(
      new GetCommand({ TableName: tables.accounts, Key: { accountId } }),
    );
    await put(tables.accounts, { ...Item, balanceCents: Number(Item?.balanceCents) + amountCents });
    return () => put(tables.accounts, { ...Item });
  };
  const twiceDelivered = <T>(events: readonly T[]) =>
    events.filter((e) => twice(JSON.stringify(e)));

  beforeAll(async () => {
    // The state a correct run leaves: every payment applied once, every order decided (here:
    // rejected, so the stock is untouched), malformed messages dead-lettered with their reasons,
    // the conflicting payment dead-lettered on its last receive with its condition's failure.
    const balances = new Map<string, number>();
    for (const p of plan.payments)
      balances.set(p.accountId, (balances.get(p.accountId) ?? 0) + p.amountCents);
    for (const [accountId, balanceCents] of balances)
      await put(tables.accounts, { accountId, balanceCents, currency: 'EUR' });
    for (const p of plan.payments) await put(tables.entries, { ...p });
    // Each valid event committed: its inbox entry, with its body's hash.
    for (const m of plan.messages.filter((m) => !m.expectedError)) {
      const { eventId } = JSON.parse(m.body) as { eventId: string };
      if (plan.conflicting.some((c) => c.eventId === eventId)) continue;
      await put(tables.inbox, { pk: `${m.consumer}#${eventId}`, payloadHash: sha256(m.body) });
    }
    for (const [sku, available] of plan.seededStock) await put(tables.stock, { sku, available });
    for (const o of plan.orders)
      await put(tables.orders, {
        orderId: o.orderId,
        eventId: o.eventId,
        status: 'REJECTED',
        shortSkus: [],
      });
    for (const m of plan.malformed) {
      await aws.sqs.send(
        new SendMessageCommand({
          QueueUrl: dlqs[m.consumer],
          MessageBody: m.body,
          MessageAttributes: {
            'inbox.error': { DataType: 'String', StringValue: m.expectedError },
          },
        }),
      );
    }
    for (const c of plan.conflicting)
      await aws.sqs.send(
        new SendMessageCommand({
          QueueUrl: dlqs.ledger,
          MessageBody: JSON.stringify(c),
          MessageAttributes: {
            'inbox.error': { DataType: 'String', StringValue: 'BusinessConditionFailedError' },
          },
        }),
      );
  });

  it('passes every invariant on the state of a correct run, leaving the DLQ messages in place', async () => {
    expect(plan.conflicting).toHaveLength(1);
    expect(await failing()).toEqual([]);
    expect(await failing()).toEqual([]);
  });

  it('fails exactly the balance invariant when a payment is applied twice (and the upstream-duplicate one if its account holds an event delivered twice)', async () => {
    const [payment] = onceDelivered(plan.payments);
    const accountId = payment?.accountId ?? '';
    const sharesAccount = twiceDelivered(plan.payments).some((p) => p.accountId === accountId);
    const restore = await creditAgain(accountId, payment?.amountCents ?? 0);

    try {
      expect(await failing()).toEqual([
        'each balance = sum of its distinct payments',
        ...(sharesAccount ? [UPSTREAM_DUPLICATES] : []),
      ]);
    } finally {
      await restore();
    }
  });

  it('fails the upstream-duplicate invariant, and the balance one, when a payment its upstream delivered twice is applied twice', async () => {
    const [payment] = twiceDelivered(plan.payments);
    expect(payment).toBeDefined();
    const accountId = payment?.accountId ?? '';
    const restore = await creditAgain(accountId, payment?.amountCents ?? 0);

    try {
      const results = await check();
      expect(results.filter((r) => !r.holds).map((r) => r.name)).toEqual([
        'each balance = sum of its distinct payments',
        UPSTREAM_DUPLICATES,
      ]);
      expect(results.find((r) => r.name === UPSTREAM_DUPLICATES)?.detail).toContain(
        String(payment?.eventId),
      );
    } finally {
      await restore();
    }
  });

  it('fails the stock invariants when a SKU is oversold', async () => {
    await put(tables.stock, { sku: 'sku-apple', available: -1, reserved: 0 });

    expect(await failing()).toEqual(['no SKU below zero', 'reserved + available = seeded stock']);
    await put(tables.stock, { sku: 'sku-apple', available: plan.seededStock.get('sku-apple') });
  });

  it('fails exactly the nothing-lost invariant when an event is neither committed nor dead-lettered', async () => {
    const [order] = onceDelivered(plan.orders);
    const pk = `inventory#${order?.eventId}`;
    const { Item } = await aws.documentClient.send(
      new GetCommand({ TableName: tables.inbox, Key: { pk } }),
    );
    await aws.documentClient.send(new DeleteCommand({ TableName: tables.inbox, Key: { pk } }));

    const results = await check();
    expect(results.filter((r) => !r.holds).map((r) => r.name)).toEqual([
      'nothing lost: every event sent is committed (inbox entry) or in a DLQ with its reason',
    ]);
    expect(results.find((r) => r.name.startsWith('nothing lost'))?.detail).toContain(
      String(order?.eventId),
    );
    await put(tables.inbox, { ...Item });
  });

  it('does not count an inbox entry for another body of the same key as committed', async () => {
    const [payment] = onceDelivered(plan.payments);
    const pk = `ledger#${payment?.eventId}`;
    const { Item } = await aws.documentClient.send(
      new GetCommand({ TableName: tables.inbox, Key: { pk } }),
    );
    await put(tables.inbox, { ...Item, payloadHash: sha256('another body') });

    expect(await failing()).toEqual([
      'nothing lost: every event sent is committed (inbox entry) or in a DLQ with its reason',
    ]);
    await put(tables.inbox, { ...Item });
  });

  it('fails exactly the dead-letter invariant when a valid event is in a DLQ, though it also committed', async () => {
    const [payment] = plan.payments;
    const dlq = (await aws.createQueue(aws.uniqueName('inv-extra-dlq'))).url;
    await aws.sqs.send(
      new SendMessageCommand({
        QueueUrl: dlq,
        MessageBody: JSON.stringify(payment),
        MessageAttributes: {
          'inbox.error': { DataType: 'String', StringValue: 'BusinessConditionFailedError' },
        },
      }),
    );
    const results = await checkInvariants(
      plan,
      {
        ...tables,
        deadLetterQueues: { ...dlqs, ledger: dlq },
        inbox: { table: tables.inbox, consumers },
      },
      { dynamodb: aws.dynamodb, sqs: aws.sqs },
    );
    const failed = results.filter((r) => !r.holds);

    // The ledger's malformed and conflicting messages are missing from this DLQ too.
    expect(failed.map((r) => r.name)).toContain(
      'no valid event dead-lettered: the DLQs hold only malformed and conflicting messages',
    );
    expect(failed.find((r) => r.name.startsWith('no valid event'))?.detail).toContain(
      `${payment?.eventId} (BusinessConditionFailedError)`,
    );
  });
});

const UPSTREAM_DUPLICATES =
  'every event its upstream delivered twice (same envelope, new SQS message) applied once';

function sha256(body: string): string {
  return createHash('sha256').update(body, 'utf8').digest('hex');
}
