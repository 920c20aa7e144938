import { randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { DeadLetterAttribute, outboxMessageId } from '../../../src/constants/index.js';
import { DynamoDBInboxStore, type MessageHandler } from '../../../src/index.js';
import { toRecord } from '../../../tools/local/LocalEventSourceMapping.js';
import {
  ledgerProcessor,
  type PaymentCaptured,
  payment,
  useLedger,
} from '../../support/ledgerFixture.js';
import { sqsInbox, standardAwsEnvironment } from '../../support/operatorCli.js';
import { sqsEvent } from '../../support/sqsRecords.js';

const { aws, ledger } = useLedger();
const MARKER = `marker-${randomUUID()}`;
const body = (event: PaymentCaptured) => JSON.stringify({ ...event, note: MARKER });

function record(event: PaymentCaptured) {
  return toRecord(
    {
      MessageId: randomUUID(),
      Body: body(event),
      ReceiptHandle: 'r',
      Attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()) },
    },
    'arn:aws:sqs:us-east-1:000000000000:source',
  );
}

/**
 * How many messages a receive gets now (each queue here holds at most 10): what a command read
 * and left visible again, not what it left hidden until its hold lapses. (The queue's
 * approximate counts would also count hidden ones.)
 */
async function visibleNow(url: string): Promise<number> {
  return (await aws.receive(url)).length;
}

const CREDITS_FIFO = 'http://localhost:4566/000000000000/credits.fifo';
const AUDIT_QUEUE = 'http://localhost:4566/000000000000/audit';

/** Applies the payment and publishes a credit to its account's group and an audit line. */
const applyAndPublish: MessageHandler<PaymentCaptured> = async (message, tx) => {
  await ledger.applyPayment(message, tx);
  const { accountId, paymentId } = message.body;
  tx.publish({ destination: CREDITS_FIFO, groupId: accountId, body: `${paymentId} ${MARKER}` });
  tx.publish({ destination: AUDIT_QUEUE, body: `audit ${MARKER}`, name: 'audit' });
};

describe('sqs-inbox message, with only the standard AWS variables', () => {
  it('shows a committed key with its attempts, steps and published outbox ids, and a failed step-less one, with no body anywhere', async () => {
    const env = standardAwsEnvironment(aws);
    const outboxTable = await aws.createOutboxTable(aws.uniqueName('outbox'));
    const flags = [
      'ledger',
      '--table',
      ledger.tables.inbox,
      '--outbox-table',
      outboxTable,
      '--json',
    ];
    const store = new DynamoDBInboxStore({
      tableName: ledger.tables.inbox,
      client: aws.dynamodb,
      outbox: { tableName: outboxTable },
    });
    const withSteps: MessageHandler<PaymentCaptured> = async (message, tx) => {
      await message.step('notify', async () => ({ sent: true }));
      await applyAndPublish(message, tx);
    };
    const committed = payment({ accountId: `acc-${randomUUID()}` });
    await ledgerProcessor(withSteps, { store, consumer: 'ledger' }).processRecords(
      sqsEvent(record(committed)),
    );
    const failing: MessageHandler<PaymentCaptured> = async () => {
      throw new Error(`the downstream is down ${MARKER}`);
    };
    const failed = payment({ accountId: `acc-${randomUUID()}` });
    await ledgerProcessor(failing, { store: ledger.store, consumer: 'ledger' }).processRecords(
      sqsEvent(record(failed)),
    );

    const shown = await sqsInbox(['message', ...flags, '--key', committed.eventId], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      status: 'COMPLETED',
      attempts: 1,
      steps: [{ name: 'notify' }],
      published: [
        {
          id: outboxMessageId('ledger', committed.eventId, { index: 0 }),
          destination: CREDITS_FIFO,
          inOutboxTable: true,
        },
        {
          id: outboxMessageId('ledger', committed.eventId, { name: 'audit' }),
          destination: AUDIT_QUEUE,
          inOutboxTable: true,
        },
      ],
    });
    const failure = await sqsInbox(['message', ...flags, '--key', failed.eventId], env);
    expect(failure.code, failure.stderr).toBe(0);
    expect(JSON.parse(failure.stdout)).toMatchObject({
      status: 'FAILED',
      attempts: 1,
      lastError: { name: 'Error' },
    });
    const byId = await sqsInbox(
      ['message', ...flags, '--message-id', JSON.parse(shown.stdout).messageId],
      env,
    );
    expect(JSON.parse(byId.stdout)).toMatchObject({ status: 'COMPLETED' });
    const unknown = await sqsInbox(['message', ...flags, '--key', 'never-sent'], env);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ status: 'absent' });
    for (const result of [shown, failure, byId, unknown]) {
      expect(result.stdout + result.stderr).not.toContain(MARKER);
      expect(result.stdout).not.toContain(committed.eventId);
      expect(result.stdout).not.toContain(committed.accountId);
    }
  }, 60_000);

  it('lists what a step-less commit published, and the relay DLQ’s letter of one of them', async () => {
    const env = standardAwsEnvironment(aws);
    const outboxTable = await aws.createOutboxTable(aws.uniqueName('outbox'));
    const [dlq, relayDlq] = await Promise.all([
      aws.createQueue(aws.uniqueName('message-dlq')),
      aws.createQueue(aws.uniqueName('relay-dlq')),
    ]);
    const store = new DynamoDBInboxStore({
      tableName: ledger.tables.inbox,
      client: aws.dynamodb,
      outbox: { tableName: outboxTable },
    });
    const event = payment({ accountId: `acc-${randomUUID()}` });
    await ledgerProcessor(applyAndPublish, { store, consumer: 'ledger' }).processRecords(
      sqsEvent(record(event)),
    );
    const auditId = outboxMessageId('ledger', event.eventId, { name: 'audit' });
    const attributes = (id: string) => ({
      'outbox.error': { DataType: 'String', StringValue: 'OutboxSendError' },
      'outbox.messageId': { DataType: 'String', StringValue: id },
    });
    const letter = await aws.sqs.send(
      new SendMessageCommand({
        QueueUrl: relayDlq.url,
        MessageBody: `{"kind":"sqs-inbox.outbox.dead-letter","note":"${MARKER}"}`,
        MessageAttributes: attributes(auditId),
      }),
    );
    await aws.sqs.send(
      new SendMessageCommand({
        QueueUrl: relayDlq.url,
        MessageBody: '{}',
        MessageAttributes: attributes('f'.repeat(64)),
      }),
    );
    const flags = ['ledger', '--table', ledger.tables.inbox, '--outbox-table', outboxTable];
    const searched = [...flags, '--dlq', dlq.url, '--relay-dlq', relayDlq.url, '--search-dlq'];

    const shown = await sqsInbox(['message', ...searched, '--key', event.eventId, '--json'], env);
    expect(shown.code, shown.stderr).toBe(0);
    const { published } = JSON.parse(shown.stdout);
    expect(published).toEqual([
      {
        id: outboxMessageId('ledger', event.eventId, { index: 0 }),
        destination: CREDITS_FIFO,
        inOutboxTable: true,
        relayDeadLetters: [],
      },
      {
        id: auditId,
        destination: AUDIT_QUEUE,
        inOutboxTable: true,
        relayDeadLetters: [{ dlqMessageId: letter.MessageId, reason: 'OutboxSendError' }],
      },
    ]);
    const text = await sqsInbox(['message', ...flags, '--key', event.eventId], env);
    expect(text.stdout).toContain(`${auditId} → ${AUDIT_QUEUE}, in the outbox table`);
    for (const result of [shown, text]) expect(result.stdout + result.stderr).not.toContain(MARKER);
    expect(await visibleNow(relayDlq.url)).toBe(2);
  }, 60_000);

  it('finds a DLQ message’s entry by its key recovered as the consumer keys it, and lists the key’s DLQ copies', async () => {
    const env = standardAwsEnvironment(aws);
    const dlq = await aws.createQueue(aws.uniqueName('message-dlq'));
    const event = payment({ accountId: `acc-${randomUUID()}` });
    await ledgerProcessor(ledger.applyPayment, {
      store: ledger.store,
      consumer: 'ledger',
    }).processRecords(sqsEvent(record(event)));
    const copy = () =>
      aws.sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: body(event) }));
    const { MessageId } = await copy();
    await copy();
    await aws.sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: body(payment()) }));
    const flags = [
      'ledger',
      '--table',
      ledger.tables.inbox,
      '--dlq',
      dlq.url,
      '--key-from',
      'field:eventId',
      '--json',
    ];

    const found = await sqsInbox(
      ['message', ...flags, '--from-dlq', MessageId ?? '', '--search-dlq'],
      env,
    );
    expect(found.code, found.stderr).toBe(0);
    const document = JSON.parse(found.stdout);
    expect(document).toMatchObject({ status: 'COMPLETED' });
    expect(document.dlqCopies).toHaveLength(2);
    expect(found.stdout + found.stderr).not.toContain(MARKER);
    expect(await visibleNow(dlq.url)).toBe(3);
  }, 60_000);

  it('ends with exit code 3 and one line when there are no credentials, 2 on a usage error', async () => {
    const {
      AWS_ACCESS_KEY_ID: _id,
      AWS_SECRET_ACCESS_KEY: _secret,
      ...noCredentials
    } = standardAwsEnvironment(aws);
    const refused = await sqsInbox(
      ['message', 'ledger', '--table', ledger.tables.inbox, '--key', 'k'],
      noCredentials,
    );
    expect(refused.code).toBe(3);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/^sqs-inbox: AWS refused: CredentialsProviderError/);
    const usage = await sqsInbox(
      ['message', 'ledger', '--table', ledger.tables.inbox, '--kee', 'k'],
      standardAwsEnvironment(aws),
    );
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--kee/);
  }, 60_000);
});

describe('sqs-inbox dlq report', () => {
  it('groups a DLQ by reason and source with exact counts, and leaves every message visible again', async () => {
    const dlq = await aws.createQueue(aws.uniqueName('report-dlq'));
    const send = (reason: string | undefined, source: string) =>
      aws.sqs.send(
        new SendMessageCommand({
          QueueUrl: dlq.url,
          MessageBody: body(payment()),
          ...(reason
            ? {
                MessageAttributes: {
                  [DeadLetterAttribute.Error]: { DataType: 'String', StringValue: reason },
                  [DeadLetterAttribute.SourceQueueArn]: { DataType: 'String', StringValue: source },
                },
              }
            : {}),
        }),
      );
    for (let n = 0; n < 3; n++)
      await send('SchemaValidationError', 'arn:aws:sqs:us-east-1:000000000000:a');
    for (let n = 0; n < 2; n++)
      await send('TransientStoreError', 'arn:aws:sqs:us-east-1:000000000000:a');
    await send('TransientStoreError', 'arn:aws:sqs:us-east-1:000000000000:b');
    await send(undefined, '');

    const report = await sqsInbox(
      ['dlq', 'report', 'ledger', '--table', ledger.tables.inbox, '--dlq', dlq.url, '--json'],
      standardAwsEnvironment(aws),
    );
    expect(report.code, report.stderr).toBe(1);
    const document = JSON.parse(report.stdout);
    const groups = document.groups.map(
      (g: { reason: string; sourceQueueArn: string; count: number }) => [
        g.reason,
        g.sourceQueueArn.split(':').at(-1),
        g.count,
      ],
    );
    expect(groups).toEqual([
      ['SchemaValidationError', 'a', 3],
      ['TransientStoreError', 'a', 2],
      ['no reason recorded', 'unknown', 1],
      ['TransientStoreError', 'b', 1],
    ]);
    expect(document.messagesRead).toBe(7);
    expect(report.stdout + report.stderr).not.toContain(MARKER);
    expect(await visibleNow(dlq.url)).toBe(7);
  }, 60_000);
});
