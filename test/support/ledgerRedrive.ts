import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { operationRecordPk } from '../../src/aws/OperationRecords.js';
import type { InboxStore } from '../../src/core/InboxStore.js';
import type { ConsumerReading } from '../../src/operations/recoverKey.js';
import { MessageSource } from '../../src/sources/MessageSource.js';
import type { TestAws } from '../harness/aws.js';

/**
 * The test ledger's TTL as the redrive is told it: the construct's default (23 days), longer
 * than a source queue keeps a message plus its time in the DLQ, so no letter here is too old
 * for an absent entry to prove that it never committed.
 */
export const LEDGER_TTL_SECONDS = 1_987_200;

/**
 * `sqs-inbox dlq redrive` of the test ledger's DLQ: its inbox table, its TTL, and its key (the
 * `eventId` field, or with `keyIsMessageId` the SQS message id); with `queue`, the source queue
 * a letter with no recorded source goes back to. The caller adds `--apply`, an output format…
 *
 * @example
 * ```ts
 * const run = await sqsInbox([...ledgerRedrive(ledger, dlq), '--apply', '--jsonl'], env);
 * ```
 */
export function ledgerRedrive(
  ledger: { readonly tables: { readonly inbox: string } },
  dlq: { readonly url: string },
  options: { readonly queue?: { readonly url: string }; readonly keyIsMessageId?: boolean } = {},
): string[] {
  return [
    ...['dlq', 'redrive', 'ledger', '--table', ledger.tables.inbox, '--dlq', dlq.url],
    ...(options.queue ? ['--queue', options.queue.url] : []),
    ...['--ttl-seconds', String(LEDGER_TTL_SECONDS)],
    ...(options.keyIsMessageId ? ['--key-is-message-id'] : ['--key-from', 'field:eventId']),
  ];
}

/**
 * How the test ledger reads its messages, for a redrive run in the test's own process: from SQS,
 * keyed by the payment's `eventId`, its entries in `store`.
 *
 * @example
 * ```ts
 * await redriveDeadLetters({ queue, reading: ledgerReading(ledger.store), ttlSeconds: LEDGER_TTL_SECONDS, … });
 * ```
 */
export function ledgerReading(store: InboxStore): ConsumerReading {
  return {
    store,
    consumer: 'ledger',
    sources: [MessageSource.Sqs],
    key: ({ body }) => (body as { eventId: string }).eventId,
  };
}

/**
 * The audit record an applied redrive of the test ledger's DLQ wrote in its inbox table, read
 * consistently; undefined when it wrote none.
 *
 * @example
 * ```ts
 * expect(await auditRecordOf(aws, ledger, operationId)).toMatchObject({ outcome: 'done' });
 * ```
 */
export async function auditRecordOf(
  aws: TestAws,
  ledger: { readonly tables: { readonly inbox: string } },
  operationId: string,
): Promise<Record<string, unknown> | undefined> {
  const { Item } = await aws.documentClient.send(
    new GetCommand({
      TableName: ledger.tables.inbox,
      Key: { pk: operationRecordPk(operationId) },
      ConsistentRead: true,
    }),
  );
  return Item;
}
