import { createHash } from 'node:crypto';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { PurgeQueueCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  emailSubject,
  type PaymentNotification,
  receiptKey,
} from '../../functions/notifier/paymentNotification.js';
import { outboxMessageId, stepIdempotencyKey } from '../../src/constants/index.js';
import { checkInvariants } from '../../tools/local/checkInvariants.js';
import type { ExtraEmailAllowance } from '../../tools/local/checkNotifications.js';
import { planDemoTraffic } from '../../tools/local/demoTraffic.js';
import type { SentEmail } from '../../tools/local/readSentEmails.js';
import { testAws } from '../harness/aws.js';

const aws = testAws();
const s3 = new S3Client({
  endpoint: aws.endpoints.sqs,
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  forcePathStyle: true,
});
const tables = {
  accounts: aws.uniqueName('inv-accounts'),
  entries: aws.uniqueName('inv-entries'),
  stock: aws.uniqueName('inv-stock'),
  orders: aws.uniqueName('inv-orders'),
  inbox: aws.uniqueName('inv-inbox'),
  outboxTable: aws.uniqueName('inv-outbox'),
};
const notifier = {
  notifications: aws.uniqueName('inv-notifications'),
  receiptsBucket: aws.uniqueName('inv-receipts'),
  consumer: 'notifier',
  sender: 'payments@example.com',
};
const consumers = { ledger: 'ledger', inventory: 'inventory', notifier: 'notifier' };
let dlqs: { ledger: string; inventory: string; notifier: string; relay: string };

beforeAll(async () => {
  await Promise.all([
    aws.createTable(tables.accounts, [['accountId', 'HASH']]),
    aws.createTable(tables.entries, [['paymentId', 'HASH']]),
    aws.createTable(tables.stock, [['sku', 'HASH']]),
    aws.createTable(tables.orders, [['orderId', 'HASH']]),
    aws.createTable(tables.inbox, [['pk', 'HASH']]),
    aws.createTable(tables.outboxTable, [['pk', 'HASH']]),
    aws.createTable(notifier.notifications, [['eventId', 'HASH']]),
    s3.send(new CreateBucketCommand({ Bucket: notifier.receiptsBucket })),
  ]);
  dlqs = {
    ledger: (await aws.createQueue(aws.uniqueName('inv-ledger-dlq'))).url,
    inventory: (await aws.createQueue(aws.uniqueName('inv-inventory-dlq'))).url,
    notifier: (await aws.createQueue(aws.uniqueName('inv-notifier-dlq'))).url,
    relay: (await aws.createQueue(aws.uniqueName('inv-relay-dlq'))).url,
  };
});
afterAll(async () => {
  await aws.cleanup();
  s3.destroy();
});

/** The one email a notification gets, as SES would list it. */
function emailOf(notification: PaymentNotification, copy = 0): SentEmail {
  const reference = stepIdempotencyKey('notifier', notification.eventId, 'email');
  return {
    messageId: `msg-${notification.eventId}-${copy}`,
    from: 'payments@example.com',
    to: [notification.email],
    subject: emailSubject(notification),
    bodyText: `We received it.\nReference: ${reference}`,
  };
}

describe('the npm start invariant report', () => {
  const plan = planDemoTraffic(30, 0.2, 5);
  const put = (table: string, item: Record<string, unknown>) =>
    aws.documentClient.send(new PutCommand({ TableName: table, Item: item }));
  const emails = plan.notifications.map((n) => emailOf(n));
  const check = (sent: readonly SentEmail[] = emails, allowance: ExtraEmailAllowance = new Map()) =>
    checkInvariants(
      plan,
      {
        ...tables,
        notifier,
        deadLetterQueues: dlqs,
        inbox: { table: tables.inbox, consumers },
        outbox: { table: tables.outboxTable, deadLetterQueueUrl: dlqs.relay },
      },
      { dynamodb: aws.dynamodb, sqs: aws.sqs, s3 },
      { emails: sent, allowance },
    );
  const failing = async (...args: Parameters<typeof check>) =>
    (await check(...args)).filter((result) => !result.holds).map((result) => result.name);
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
    // Each credit's outgoing notification, in the ledger's outbox.
    for (const p of plan.payments) {
      const id = outboxMessageId('ledger', p.eventId, { name: 'credited' });
      await put(tables.outboxTable, { pk: `msg#${id}`, messages: [{ id }] });
    }
    // Each valid event committed: its inbox entry, with its body's hash.
    for (const m of plan.messages.filter((m) => !m.expectedError)) {
      const { eventId } = JSON.parse(m.body) as { eventId: string };
      if (plan.conflicting.some((c) => c.eventId === eventId)) continue;
      await put(tables.inbox, {
        pk: `${m.consumer}#${eventId}`,
        payloadHash: sha256(m.body),
        status: 'COMPLETED',
      });
    }
    // Each notification: the notifier's entry (the ledger's outbox relayed it), its receipt,
    // its row naming its email, its one email.
    for (const n of plan.notifications) {
      await put(tables.inbox, {
        pk: `notifier#${n.eventId}`,
        payloadHash: sha256(JSON.stringify(n)),
        status: 'COMPLETED',
      });
      const { email: _email, ...receipt } = n;
      await s3.send(
        new PutObjectCommand({
          Bucket: notifier.receiptsBucket,
          Key: receiptKey(n.paymentId),
          Body: JSON.stringify(receipt),
        }),
      );
      await put(notifier.notifications, {
        eventId: n.eventId,
        paymentId: n.paymentId,
        emailMessageId: emailOf(n).messageId,
        receiptKey: receiptKey(n.paymentId),
      });
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
    expect(plan.notifications.length).toBeGreaterThan(1);
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

  it('fails exactly the email invariant when an event got a second email no stopped attempt accounts for, and passes when one does', async () => {
    const [notification] = plan.notifications;
    const twice = [...emails, emailOf(notification as PaymentNotification, 1)];

    expect(await failing(twice)).toEqual([EMAILS]);
    expect(await failing(twice, new Map([[String(notification?.eventId), 1]]))).toEqual([]);
  });

  it('fails exactly the email invariant when a resend carries another reference than its event’s key', async () => {
    const [notification] = plan.notifications as PaymentNotification[];
    const resend = {
      ...emailOf(notification as PaymentNotification, 1),
      bodyText: 'Reference: per-attempt-key',
    };
    const results = await check([...emails, resend], new Map([[notification?.eventId ?? '', 1]]));

    expect(results.filter((r) => !r.holds).map((r) => r.name)).toEqual([EMAILS]);
    expect(results.find((r) => r.name === EMAILS)?.detail).toContain(
      "without the event's reference",
    );
  });

  it('fails exactly the email invariant when an email went to another address, came from another sender or names no event', async () => {
    const [notification] = plan.notifications as PaymentNotification[];
    const own = emailOf(notification as PaymentNotification);
    const astray = [
      { ...own, to: ['someone@else.example'] },
      { ...own, from: 'spoofed@example.com' },
      { ...own, subject: 'Payment received' },
    ];

    for (const wrong of astray) {
      const sent = emails.map((email) => (email.messageId === own.messageId ? wrong : email));
      expect(await failing(sent)).toContain(EMAILS);
    }
  });

  it('fails the receipt invariant when a notified payment has no receipt', async () => {
    const [notification] = plan.notifications as PaymentNotification[];
    const key = receiptKey(notification?.paymentId ?? '');
    await s3.send(new DeleteObjectCommand({ Bucket: notifier.receiptsBucket, Key: key }));

    try {
      expect(await failing()).toEqual([RECEIPTS]);
    } finally {
      const { email: _email, ...receipt } = notification as PaymentNotification;
      await s3.send(
        new PutObjectCommand({
          Bucket: notifier.receiptsBucket,
          Key: key,
          Body: JSON.stringify(receipt),
        }),
      );
    }
  });

  it('does not count an entry still in progress (a lease and a journal, not completed) as committed', async () => {
    const [notification] = plan.notifications as PaymentNotification[];
    const pk = `notifier#${notification?.eventId}`;
    const { Item } = await aws.documentClient.send(
      new GetCommand({ TableName: tables.inbox, Key: { pk } }),
    );
    await put(tables.inbox, { ...Item, status: 'IN_PROGRESS' });

    try {
      const failed = await failing();
      expect(failed).toContain(NOTHING_LOST_BETWEEN_HOPS);
      // Its email, receipt and row are then for an event the notifier never committed.
      expect(failed).toEqual(expect.arrayContaining([RECEIPTS, EMAILS]));
    } finally {
      await put(tables.inbox, { ...Item });
    }
  });

  it('fails exactly the outbox invariant when a credit has no outbox item (published outside its transaction, or not at all)', async () => {
    const [payment] = plan.payments;
    const pk = `msg#${outboxMessageId('ledger', payment?.eventId ?? '', { name: 'credited' })}`;
    await aws.documentClient.send(
      new DeleteCommand({ TableName: tables.outboxTable, Key: { pk } }),
    );

    try {
      expect(await failing()).toEqual([
        'every credited payment published in its transaction (an outbox item per credit)',
      ]);
    } finally {
      await put(tables.outboxTable, { pk, messages: [] });
    }
  });

  it('fails exactly the between-hops invariant when the relay dead-lettered a message', async () => {
    await aws.sqs.send(
      new SendMessageCommand({
        QueueUrl: dlqs.relay,
        MessageBody: '{"kind":"sqs-inbox.outbox.dead-letter"}',
      }),
    );
    try {
      expect(await failing()).toEqual([NOTHING_LOST_BETWEEN_HOPS]);
    } finally {
      await aws.sqs.send(new PurgeQueueCommand({ QueueUrl: dlqs.relay }));
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
        notifier,
        deadLetterQueues: { ...dlqs, ledger: dlq },
        inbox: { table: tables.inbox, consumers },
      },
      { dynamodb: aws.dynamodb, sqs: aws.sqs, s3 },
      { emails, allowance: new Map() },
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

const EMAILS =
  "notifier: one email per event, extra ones only where an attempt sent it and never journaled it, each with the event's reference";
const RECEIPTS = 'notifier: one receipt per notified payment, with its content (S3, If-None-Match)';
const UPSTREAM_DUPLICATES =
  'every event its upstream delivered twice (same envelope, new SQS message) applied once';

function sha256(body: string): string {
  return createHash('sha256').update(body, 'utf8').digest('hex');
}
const NOTHING_LOST_BETWEEN_HOPS =
  'nothing lost between the hops: every published message relayed and committed by the notifier, none dead-lettered by the relay';
