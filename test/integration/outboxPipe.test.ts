import { randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OUTBOX_PIPE_INPUT_TEMPLATE } from '../../src/cdk/OutboxPipe.js';
import {
  createBatchProcessor,
  DynamoDBInboxStore,
  MessageSource,
  RecordStatus,
} from '../../src/index.js';
import { groupItemPk } from '../../src/outbox/planOutboxItems.js';
import { toRecord } from '../../tools/local/LocalEventSourceMapping.js';
import { PaymentCaptured, payment, useLedger } from '../support/ledgerFixture.js';
import { takeMessages } from '../support/receiveMessages.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';

const { aws, ledger } = useLedger();
let outboxTable: string;
let credits: { url: string; arn: string };

beforeAll(async () => {
  outboxTable = await aws.createOutboxTable(aws.uniqueName('outbox-pipe'));
  credits = await aws.createQueue(`${aws.uniqueName('credits')}.fifo`);
});

/**
 * The body an EventBridge pipe sends for a stream record, rendered from `OutboxPipe`'s own input
 * template: each `<$.path>` between quotes replaced by the string at that path, JSON-escaped, as
 * the Pipes documentation describes. No emulator runs a pipe (MiniStack's deliver only to SNS and
 * Step Functions), so this stands in for it.
 */
function pipedBody(record: { dynamodb: { NewImage: Record<string, unknown> } }): string {
  return OUTBOX_PIPE_INPUT_TEMPLATE.replace(/<\$\.([^>]+)>/g, (_, path: string) => {
    const value = path
      .split(/\.|\[(\d+)\]/)
      .filter((step) => step !== undefined && step !== '')
      .reduce<unknown>((at, step) => (at as Record<string, unknown>)?.[step], record);
    if (typeof value !== 'string') throw new Error(`the template's path ${path} names no string`);
    return JSON.stringify(value).slice(1, -1);
  });
}

const take = (queueUrl: string, count: number, waitMillis?: number) =>
  takeMessages(aws.sqs, queueUrl, count, waitMillis);

describe('an outbox relayed by an EventBridge pipe, read downstream', () => {
  it("applies once downstream a message sent twice in the pipe's body (the id inside it), with the body the handler published", async () => {
    const event = payment({ accountId: `acc-${randomUUID()}` });
    const upstream = createBatchProcessor(
      async ({ body }, tx) => {
        tx.publish({
          destination: credits.url,
          groupId: body.accountId,
          body: { accountId: body.accountId, amountCents: body.amountCents, note: 'say "hi"\n' },
        });
      },
      {
        store: new DynamoDBInboxStore({
          tableName: ledger.tables.inbox,
          client: aws.dynamodb,
          outbox: { tableName: outboxTable, pipeDestination: credits.url },
        }),
        consumer: 'ledger-upstream',
        schema: PaymentCaptured,
        key: ({ body }) => body.eventId,
        logger: recordingLogger(),
      },
    );
    await upstream.process(sqsEvent(sqsRecord(event)));
    const { Item } = await aws.documentClient.send(
      new GetCommand({
        TableName: outboxTable,
        Key: { pk: groupItemPk(credits.url, event.accountId) },
        ConsistentRead: true,
      }),
    );
    const body = pipedBody({ dynamodb: { NewImage: marshall(Item ?? {}) } });
    // The pipe sends it twice (a retried batch), the second time past the FIFO's 5 minutes.
    for (const copy of [1, 2]) {
      await aws.sqs.send(
        new SendMessageCommand({
          QueueUrl: credits.url,
          MessageBody: body,
          MessageGroupId: event.accountId,
          MessageDeduplicationId: `copy-${copy}-${randomUUID()}`,
        }),
      );
    }
    const copies = await take(credits.url, 2);
    expect(copies).toHaveLength(2);

    const applied: unknown[] = [];
    const downstream = createBatchProcessor(
      async ({ body }, tx) => {
        applied.push(body);
        tx.update({
          TableName: ledger.tables.accounts,
          Key: { accountId: `notified-${body.accountId}` },
          UpdateExpression: 'ADD balanceCents :a',
          ExpressionAttributeValues: { ':a': body.amountCents },
        });
      },
      {
        store: ledger.store,
        consumer: 'notifier',
        schema: z.object({ accountId: z.string(), amountCents: z.number(), note: z.string() }),
        sources: [MessageSource.Outbox],
        logger: recordingLogger(),
      },
    );
    const outcomes = await downstream.processRecords(
      sqsEvent(...copies.map((copy) => toRecord(copy, credits.arn))),
    );

    expect(outcomes.map(({ status }) => status)).toEqual([
      RecordStatus.Processed,
      RecordStatus.Duplicate,
    ]);
    expect(applied).toEqual([
      { accountId: event.accountId, amountCents: event.amountCents, note: 'say "hi"\n' },
    ]);
    expect(await ledger.balanceOf(`notified-${event.accountId}`)).toBe(event.amountCents);
  });
});
