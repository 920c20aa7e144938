import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { DestinationKind, type MessageHandler, PermanentError, parseDestination } from 'sqs-inbox';
import { z } from 'zod';
import type { ConsumerDefinition } from '../shared/ConsumerDefinition.js';

/** A captured card payment, credited to one account exactly once. */
export const PaymentCaptured = z.object({
  eventId: z.string().min(1),
  accountId: z.string().min(1),
  paymentId: z.string().min(1),
  amountCents: z.number().int().positive(),
  currency: z.string().regex(/^[A-Z]{3}$/, 'a 3-letter ISO 4217 code such as EUR'),
  /** The payer's address: the credited payment is passed on to the notifier, which mails it. */
  email: z.string().email().optional(),
});
export type PaymentCaptured = z.infer<typeof PaymentCaptured>;

/** The ledger's outbox destination by its logical name (the construct's `outbox.destinations` key). */
export const LedgerDestination = { Credited: 'credited' } as const;

/** The ledger's tables: account balances and one entry per payment. */
export interface LedgerTables {
  readonly accounts: string;
  readonly entries: string;
}

/**
 * Credits the payment to its account and writes its ledger entry, in the inbox transaction;
 * with a `credited` destination and the payer's email, publishes the credited payment there
 * through the outbox, in the same transaction (the notifier's queue in the reference stack).
 * An account keeps one currency: a payment in another is a permanent error (it goes to the
 * DLQ); the condition on the update guards the race with a concurrent first payment.
 * A different event for a payment already recorded fails the entry's condition: nothing is
 * applied, the message is retried (it may be a copy still in flight) and, if it keeps failing,
 * reaches the DLQ through the redrive policy for someone to look at.
 */
export function applyPayment(
  tables: LedgerTables,
  client: DynamoDBDocumentClient,
  credited?: string,
): MessageHandler<PaymentCaptured> {
  return async ({ body }, tx) => {
    const { Item: account } = await client.send(
      new GetCommand({
        TableName: tables.accounts,
        Key: { accountId: body.accountId },
        ConsistentRead: true,
      }),
    );
    if (account?.currency !== undefined && account.currency !== body.currency) {
      throw new PermanentError(
        `payment ${body.paymentId} is in ${body.currency} but account ${body.accountId} is in ${account.currency}`,
      );
    }
    tx.update({
      TableName: tables.accounts,
      Key: { accountId: body.accountId },
      UpdateExpression:
        'ADD balanceCents :amount SET currency = if_not_exists(currency, :currency)',
      ConditionExpression: 'attribute_not_exists(currency) OR currency = :currency',
      ExpressionAttributeValues: { ':amount': body.amountCents, ':currency': body.currency },
    });
    tx.put({
      TableName: tables.entries,
      Item: { ...body },
      ConditionExpression: 'attribute_not_exists(paymentId)',
    });
    if (credited === undefined || body.email === undefined) return;
    // The notifier's PaymentNotification: sent if and only if the credit commits; on a FIFO
    // destination, an account's credits in the order they were applied.
    tx.publish({
      destination: credited,
      name: 'credited',
      body: { ...body, email: body.email },
      ...(isFifo(credited) ? { groupId: body.accountId } : {}),
    });
  };
}

function isFifo(destination: string): boolean {
  const kind = parseDestination(destination)?.kind;
  return kind === DestinationKind.SqsFifoQueue || kind === DestinationKind.SnsFifoTopic;
}

/**
 * The ledger's business tables by their logical names: the keys of the construct's
 * `businessTables`, read back with `inboxConfigFromEnvironment().table(name)`.
 */
export const LedgerTable = { Accounts: 'accounts', Entries: 'ledgerEntries' } as const;

/** The ledger consumer: keyed by `eventId`; business tables {@link LedgerTable}. */
export const ledgerConsumer: ConsumerDefinition<typeof PaymentCaptured> = {
  schema: PaymentCaptured,
  key: ({ body }) => body.eventId,
  handler: (table, client, destination) =>
    applyPayment(
      { accounts: table(LedgerTable.Accounts), entries: table(LedgerTable.Entries) },
      client,
      destination?.(LedgerDestination.Credited),
    ),
};
