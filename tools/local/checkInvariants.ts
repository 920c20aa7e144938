import { createHash } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  ChangeMessageVisibilityBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { businessTableVariable, DeadLetterAttribute, InboxEnvironment, inboxPk } from 'sqs-inbox';
import { InventoryTable } from '../../functions/inventory/orderPlaced.js';
import { LedgerTable } from '../../functions/ledger/paymentCaptured.js';
import type { ConsumerName, DemoMessage, DemoPlan } from './demoTraffic.js';
import type { LocalMapping } from './provisionFromTemplate.js';
import { payloadOf } from './UpstreamDelivery.js';

/** One checked invariant. */
export interface InvariantResult {
  readonly name: string;
  readonly holds: boolean;
  readonly detail: string;
  /** Counts behind the result, for reports (e.g. `committed`, `inDeadLetterQueues`). */
  readonly figures?: Readonly<Record<string, number>>;
}

/** The tables and dead-letter queues the invariants read. */
export interface InvariantTargets {
  readonly accounts: string;
  readonly entries: string;
  readonly stock: string;
  readonly orders: string;
  readonly deadLetterQueues: Record<ConsumerName, string>;
  /** The inbox table and each consumer's name in it (`INBOX_CONSUMER`). */
  readonly inbox: { readonly table: string; readonly consumers: Record<ConsumerName, string> };
}

/**
 * Checks the reference service's promises after a run: no double effects (balances, one
 * ledger entry per payment, one decision per order), no oversold stock, and every malformed
 * message in a DLQ with its reason.
 */
export async function checkInvariants(
  plan: DemoPlan,
  targets: InvariantTargets,
  clients: { dynamodb: DynamoDBClient; sqs: SQSClient },
): Promise<InvariantResult[]> {
  const documentClient = DynamoDBDocumentClient.from(clients.dynamodb);
  const [accounts, entries, stock, orders, inbox] = await Promise.all(
    [targets.accounts, targets.entries, targets.stock, targets.orders, targets.inbox.table].map(
      (table) => scanAll(documentClient, table),
    ),
  );
  // A dead-lettered message carries the envelope it was delivered in: compared by its payload.
  const dead = await Promise.all(
    (['ledger', 'inventory'] as const).map(async (consumer) =>
      (await peekAll(clients.sqs, targets.deadLetterQueues[consumer])).map((message) => ({
        consumer,
        message: { ...message, Body: payloadOf(message.Body ?? '') },
      })),
    ),
  );
  const deadMessages = dead.flat().map(({ message }) => message);
  return [
    balancesMatchPayments(plan, accounts ?? []),
    oneEntryPerPayment(plan, entries ?? []),
    noSkuBelowZero(stock ?? []),
    stockIsConserved(plan, stock ?? []),
    oneDecisionPerOrder(plan, orders ?? [], stock ?? []),
    upstreamDuplicatesAppliedOnce(plan, accounts ?? [], orders ?? [], inbox ?? [], targets),
    malformedInDeadLetters(plan, deadMessages),
    // Only `npm start` sends conflicting payments; the check is vacuous without them.
    ...(plan.conflicting.length > 0
      ? [conflictingRedriven(plan, deadMessages, entries ?? [])]
      : []),
    nothingLost(plan, inbox ?? [], dead.flat(), targets.inbox.consumers),
    onlyExpectedDeadLetters(plan, dead.flat()),
  ];
}

/**
 * What the invariants read, from the two reference mappings' function environments.
 *
 * @example
 * ```ts
 * const results = await checkInvariants(plan, invariantTargetsOf(ledger, inventory), clients);
 * ```
 */
export function invariantTargetsOf(
  ledger: LocalMapping,
  inventory: LocalMapping,
): InvariantTargets {
  return {
    accounts: ledger.environment[businessTableVariable(LedgerTable.Accounts)] ?? '',
    entries: ledger.environment[businessTableVariable(LedgerTable.Entries)] ?? '',
    stock: inventory.environment[businessTableVariable(InventoryTable.Stock)] ?? '',
    orders: inventory.environment[businessTableVariable(InventoryTable.Orders)] ?? '',
    deadLetterQueues: {
      ledger: ledger.deadLetterQueueUrl,
      inventory: inventory.deadLetterQueueUrl,
    },
    inbox: {
      table: ledger.environment[InboxEnvironment.TableName] ?? '',
      consumers: {
        ledger: ledger.environment[InboxEnvironment.Consumer] ?? '',
        inventory: inventory.environment[InboxEnvironment.Consumer] ?? '',
      },
    },
  };
}

type Item = Record<string, unknown>;

function balancesMatchPayments(plan: DemoPlan, accounts: Item[]): InvariantResult {
  const expected = new Map<string, number>();
  for (const p of plan.payments)
    expected.set(p.accountId, (expected.get(p.accountId) ?? 0) + p.amountCents);
  const wrong = [
    ...[...expected]
      .filter(
        ([id, cents]) =>
          Number(accounts.find((a) => a.accountId === id)?.balanceCents ?? 0) !== cents,
      )
      .map(([id]) => id),
    ...accounts
      .filter((a) => !expected.has(String(a.accountId)) && Number(a.balanceCents ?? 0) !== 0)
      .map((a) => String(a.accountId)),
  ];
  return {
    name: 'each balance = sum of its distinct payments',
    holds: wrong.length === 0,
    detail: wrong.length === 0 ? `${expected.size} accounts` : `wrong: ${wrong.join(', ')}`,
  };
}

function oneEntryPerPayment(plan: DemoPlan, entries: Item[]): InvariantResult {
  const byPayment = new Map(entries.map((e) => [e.paymentId, e.eventId]));
  const missing = plan.payments.filter((p) => byPayment.get(p.paymentId) !== p.eventId);
  return {
    name: 'exactly one ledger entry per payment',
    holds: missing.length === 0 && entries.length === plan.payments.length,
    detail: `${entries.length} entries for ${plan.payments.length} payments${missing.length ? `, ${missing.length} missing` : ''}`,
  };
}

function noSkuBelowZero(stock: Item[]): InvariantResult {
  const negative = stock.filter(
    (s) => !Number.isFinite(Number(s.available)) || Number(s.available) < 0,
  );
  return {
    name: 'no SKU below zero',
    holds: negative.length === 0,
    detail: negative.length
      ? `negative: ${negative.map((s) => s.sku).join(', ')}`
      : `${stock.length} SKUs`,
  };
}

function stockIsConserved(plan: DemoPlan, stock: Item[]): InvariantResult {
  const wrong = [...plan.seededStock].filter(([sku, seeded]) => {
    const row = stock.find((s) => s.sku === sku);
    return Number(row?.available ?? 0) + Number(row?.reserved ?? 0) !== seeded;
  });
  return {
    name: 'reserved + available = seeded stock',
    holds: wrong.length === 0,
    detail: wrong.length
      ? `wrong: ${wrong.map(([sku]) => sku).join(', ')}`
      : `${plan.seededStock.size} SKUs`,
  };
}

function oneDecisionPerOrder(plan: DemoPlan, orders: Item[], stock: Item[]): InvariantResult {
  const decided = new Map(orders.map((o) => [o.orderId, o]));
  const undecided = plan.orders.filter((o) => decided.get(o.orderId)?.eventId !== o.eventId);
  const reservedBySku = new Map<string, number>();
  for (const order of plan.orders) {
    if (decided.get(order.orderId)?.status !== 'RESERVED') continue;
    for (const { sku, quantity } of order.lines)
      reservedBySku.set(sku, (reservedBySku.get(sku) ?? 0) + quantity);
  }
  const mismatched = stock.filter(
    (s) => Number(s.reserved ?? 0) !== (reservedBySku.get(String(s.sku)) ?? 0),
  );
  const rejected = orders.filter((o) => o.status === 'REJECTED').length;
  return {
    name: 'each order reserved or rejected exactly once',
    holds:
      undecided.length === 0 && orders.length === plan.orders.length && mismatched.length === 0,
    detail: `${orders.length - rejected} reserved, ${rejected} rejected of ${plan.orders.length}${mismatched.length ? `; reservations off for ${mismatched.length} SKUs` : ''}`,
  };
}

/**
 * Per event its upstream delivered twice (the same envelope as a second SQS message): one
 * inbox entry with its payload's hash, and its effect counted once — its account's balance is
 * the sum of the account's distinct payments, its order decided once by this event.
 */
function upstreamDuplicatesAppliedOnce(
  plan: DemoPlan,
  accounts: Item[],
  orders: Item[],
  inbox: Item[],
  targets: InvariantTargets,
): InvariantResult {
  const seen = new Set<string>();
  const twice = plan.messages.filter((m) => {
    const id = `${m.consumer}\n${m.body}`;
    if (seen.has(id)) return true;
    seen.add(id);
    return false;
  });
  const entries = new Map(inbox.map((entry) => [String(entry.pk), entry]));
  const balance = new Map(accounts.map((a) => [a.accountId, Number(a.balanceCents ?? 0)]));
  const expected = new Map<unknown, number>();
  for (const p of plan.payments)
    expected.set(p.accountId, (expected.get(p.accountId) ?? 0) + p.amountCents);
  const decided = new Map(orders.map((o) => [o.orderId, o.eventId]));
  const wrong = twice.filter((message) => {
    if (!isCommitted(message, entries, targets.inbox.consumers)) return true;
    const event = JSON.parse(message.body) as {
      accountId?: string;
      orderId?: string;
      eventId: string;
    };
    return message.consumer === 'ledger'
      ? balance.get(event.accountId) !== expected.get(event.accountId)
      : decided.get(event.orderId) !== event.eventId;
  });
  return {
    name: 'every event its upstream delivered twice (same envelope, new SQS message) applied once',
    holds: wrong.length === 0,
    detail: wrong.length
      ? `${wrong.length} of ${twice.length} not: ${wrong
          .slice(0, 3)
          .map((m) => eventIdOf(m.body))
          .join(', ')}`
      : `${twice.length} events`,
  };
}

function malformedInDeadLetters(plan: DemoPlan, dead: Message[]): InvariantResult {
  const missing = plan.malformed.filter(
    (m) =>
      !dead.some(
        (d) =>
          d.Body === m.body &&
          d.MessageAttributes?.[DeadLetterAttribute.Error]?.StringValue === m.expectedError,
      ),
  );
  return {
    name: 'every malformed message in a DLQ with its reason',
    holds: missing.length === 0,
    detail: missing.length
      ? `${missing.length} of ${plan.malformed.length} missing`
      : `${plan.malformed.length} messages`,
  };
}

function conflictingRedriven(plan: DemoPlan, dead: Message[], entries: Item[]): InvariantResult {
  const entryEvent = new Map(entries.map((e) => [e.paymentId, e.eventId]));
  const wrong = plan.conflicting.filter((payment) => {
    // The function knows maxReceiveCount: on the last receive it dead-letters the message
    // itself, with the condition's failure as the reason.
    const deadLettered = dead.some(
      (d) =>
        d.Body === JSON.stringify(payment) &&
        d.MessageAttributes?.[DeadLetterAttribute.Error]?.StringValue ===
          'BusinessConditionFailedError',
    );
    return !deadLettered || entryEvent.get(payment.paymentId) === payment.eventId;
  });
  return {
    name: 'every conflicting payment retried, then dead-lettered on its last receive with its reason, without effect',
    holds: wrong.length === 0,
    detail: wrong.length
      ? `${wrong.length} of ${plan.conflicting.length} not`
      : `${plan.conflicting.length} messages`,
  };
}

/**
 * Every item of a table, read consistently, page by page.
 *
 * @example
 * ```ts
 * const accounts = await scanAll(documentClient, 'accounts');
 * ```
 */
export async function scanAll(client: DynamoDBDocumentClient, table: string): Promise<Item[]> {
  const items: Item[] = [];
  let ExclusiveStartKey: Item | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/** The reason a dead-lettered message carries; none means the queue's redrive moved it. */
const REDRIVEN = 'redriven after maxReceiveCount receives';

function nothingLost(
  plan: DemoPlan,
  inbox: Item[],
  dead: Array<{ consumer: ConsumerName; message: Message }>,
  consumers: Record<ConsumerName, string>,
): InvariantResult {
  const entries = new Map(inbox.map((entry) => [String(entry.pk), entry]));
  const reasons = new Map(
    dead.map(({ consumer, message }) => [
      `${consumer}\n${message.Body}`,
      message.MessageAttributes?.[DeadLetterAttribute.Error]?.StringValue ?? REDRIVEN,
    ]),
  );
  const distinct = new Map(plan.messages.map((m) => [`${m.consumer}\n${m.body}`, m]));
  const dlqReasons = new Map<string, number>();
  const lost: string[] = [];
  let committed = 0;
  for (const [id, message] of distinct) {
    if (isCommitted(message, entries, consumers)) committed++;
    else if (reasons.has(id)) {
      const reason = reasons.get(id) ?? REDRIVEN;
      dlqReasons.set(reason, (dlqReasons.get(reason) ?? 0) + 1);
    } else lost.push(eventIdOf(message.body) ?? message.body.slice(0, 40));
  }
  const inDlq = [...dlqReasons].map(([reason, n]) => `${n} ${reason}`).join(', ');
  return {
    name: 'nothing lost: every event sent is committed (inbox entry) or in a DLQ with its reason',
    holds: lost.length === 0,
    detail: lost.length
      ? `${lost.length} of ${distinct.size} lost: ${lost.slice(0, 5).join(', ')}`
      : `${committed} committed, ${distinct.size - committed} in a DLQ${inDlq ? ` (${inDlq})` : ''}`,
    figures: {
      events: distinct.size,
      committed,
      inDeadLetterQueues: distinct.size - committed - lost.length,
    },
  };
}

/** A valid event in a DLQ is a failure even when its other copy committed. */
function onlyExpectedDeadLetters(
  plan: DemoPlan,
  dead: Array<{ consumer: ConsumerName; message: Message }>,
): InvariantResult {
  const expected = new Set([
    ...plan.malformed.map((m) => `${m.consumer}\n${m.body}`),
    ...plan.conflicting.map((payment) => `ledger\n${JSON.stringify(payment)}`),
  ]);
  const unexpected = dead.filter(
    ({ consumer, message }) => !expected.has(`${consumer}\n${message.Body}`),
  );
  const named = unexpected
    .slice(0, 3)
    .map(
      ({ message }) =>
        `${eventIdOf(message.Body ?? '') ?? '?'} (${message.MessageAttributes?.[DeadLetterAttribute.Error]?.StringValue ?? REDRIVEN})`,
    );
  return {
    name: 'no valid event dead-lettered: the DLQs hold only malformed and conflicting messages',
    holds: unexpected.length === 0,
    detail: unexpected.length
      ? `${unexpected.length} unexpected: ${named.join(', ')}`
      : `${dead.length} messages for ${expected.size} expected`,
  };
}

/** Committed: the consumer's inbox holds the event's key, with this very payload's hash (the payload the producer published). */
function isCommitted(
  message: DemoMessage,
  entries: Map<string, Item>,
  consumers: Record<ConsumerName, string>,
): boolean {
  const eventId = eventIdOf(message.body);
  const entry = eventId && entries.get(inboxPk(consumers[message.consumer], eventId));
  return entry !== undefined && entry !== '' && entry.payloadHash === bodyHash(message.body);
}

/**
 * The hash the inbox stores for a body (SHA-256 hex of its UTF-8 bytes), to tell whether a
 * committed entry is this very body's.
 *
 * @example
 * ```ts
 * bodyHash('{}') // => '44136fa3…'
 * ```
 */
export function bodyHash(body: string): string {
  return createHash('sha256').update(body, 'utf8').digest('hex');
}

function eventIdOf(body: string): string | undefined {
  try {
    const { eventId } = JSON.parse(body) as { eventId?: unknown };
    return typeof eventId === 'string' ? eventId : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every message of a dead-letter queue, left in place: received (hidden) until none are left,
 * then made visible again. A FIFO queue hands out one message group at a time, so this reads
 * all of them as long as no group holds more than ten.
 */
export async function peekAll(sqs: SQSClient, queueUrl: string): Promise<Message[]> {
  const seen = new Map<string, Message>();
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 30,
        WaitTimeSeconds: 1,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
      }),
    );
    if (Messages.length === 0) break;
    for (const message of Messages) seen.set(message.MessageId ?? '', message);
  }
  const received = [...seen.values()];
  for (let i = 0; i < received.length; i += 10) {
    const entries = received.slice(i, i + 10).map((m, index) => ({
      Id: String(index),
      ReceiptHandle: m.ReceiptHandle,
      VisibilityTimeout: 0,
    }));
    await sqs.send(
      new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries }),
    );
  }
  return received;
}
