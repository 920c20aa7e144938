import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import {
  DescribeContinuousBackupsCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import {
  LambdaClient,
  ListEventSourceMappingsCommand,
  UpdateEventSourceMappingCommand,
} from '@aws-sdk/client-lambda';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  GetQueueAttributesCommand,
  type Message,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  DeadLetterAttribute,
  inboxPk,
  keyHash,
  OutboxMessageIdField,
  outboxMessageId,
  stepIdempotencyKey,
} from '../../src/constants/index.js';
import { OUTBOX_DEAD_LETTER_KIND } from '../../src/relay/index.js';
import { localClients } from '../../tools/local/localClients.js';
import { queueDepth } from '../../tools/local/queueDepth.js';
import { readSentEmails } from '../../tools/local/readSentEmails.js';
import { payloadOf, UpstreamDelivery } from '../../tools/local/UpstreamDelivery.js';
import { deployedQueue, stackOutput } from '../../tools/verify/deployedConsumers.js';
import { eventually } from '../support/eventually.js';
import { functionLogLines } from '../support/functionLogLines.js';
import { sqsInbox } from '../support/operatorCli.js';
import { receiveMessages } from '../support/receiveMessages.js';
import { E2E_CONTEXT } from './globalSetup.js';

const { endpoint, outputs } = inject('deployed');
const config = {
  endpoint,
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
};
const sqs = new SQSClient(config);
const dynamodb = new DynamoDBClient(config);
const documentClient = DynamoDBDocumentClient.from(dynamodb);
const logs = new CloudWatchLogsClient(config);
const lambda = new LambdaClient(config);
const s3 = new S3Client({ ...config, forcePathStyle: true });
/** The JSON lines a command printed with `--jsonl`. */
const jsonLines = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const upstreamClients = localClients({ dynamodb: endpoint, sqs: endpoint });
afterAll(() => {
  for (const client of [sqs, dynamodb, logs, lambda, s3, ...Object.values(upstreamClients)])
    client.destroy();
});

const output = (name: string): string => stackOutput(outputs, name);

const getItem = async (tableOutput: string, key: Record<string, string>) =>
  (
    await documentClient.send(
      new GetCommand({ TableName: output(tableOutput), Key: key, ConsistentRead: true }),
    )
  ).Item;

const drain = (queueUrl: string): Promise<Message[]> => receiveMessages(sqs, queueUrl);

let delivery: UpstreamDelivery<'ledger' | 'inventory'> | undefined;
/**
 * Publishes payments to the deployed payments topic and puts orders on the deployed orders bus
 * (found from the queues, as deployed); a message sent twice is delivered again by its upstream.
 */
async function upstreams(): Promise<UpstreamDelivery<'ledger' | 'inventory'>> {
  delivery ??= await UpstreamDelivery.find(upstreamClients, {
    ledger: await deployedQueue(sqs, outputs, 'ledger'),
    inventory: await deployedQueue(sqs, outputs, 'inventory'),
  });
  return delivery;
}

/** The consumer function's distinct log lines containing every one of `patterns`. */
function logLines(consumer: 'Ledger' | 'Inventory', ...patterns: string[]): Promise<string[]> {
  return functionLogLines(
    logs,
    {
      logGroupName: output(`${consumer}LogGroupName`),
      functionName: output(`${consumer}FunctionName`),
    },
    ...patterns,
  );
}

/** Runs `send` while the function's event source mapping is off, so what it sends is polled together. */
async function withMappingDisabled(
  functionOutput: string,
  send: () => Promise<unknown>,
): Promise<void> {
  const { EventSourceMappings = [] } = await lambda.send(
    new ListEventSourceMappingsCommand({ FunctionName: output(functionOutput) }),
  );
  const uuid = EventSourceMappings[0]?.UUID;
  if (!uuid) throw new Error(`no event source mapping for ${output(functionOutput)}`);
  await lambda.send(new UpdateEventSourceMappingCommand({ UUID: uuid, Enabled: false }));
  await sleep(2_000); // let a poll already under way finish
  try {
    await send();
  } finally {
    await lambda.send(new UpdateEventSourceMappingCommand({ UUID: uuid, Enabled: true }));
  }
}

function payment(accountId: string, overrides: Record<string, unknown> = {}) {
  return {
    eventId: `evt-${randomUUID()}`,
    accountId,
    paymentId: `pay-${randomUUID()}`,
    amountCents: 2500,
    currency: 'EUR',
    ...overrides,
  };
}

describe('the reference stack deployed with cdklocal', () => {
  it('put the redrive policies, TTL and PITR in force, applying what the emulator dropped', async () => {
    for (const consumer of ['Ledger', 'Inventory', 'Notifier']) {
      const queue = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: output(`${consumer}QueueUrl`),
          AttributeNames: ['RedrivePolicy'],
        }),
      );
      const dlq = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: output(`${consumer}DeadLetterQueueUrl`),
          AttributeNames: ['QueueArn'],
        }),
      );
      expect(JSON.parse(queue.Attributes?.RedrivePolicy ?? '{}')).toMatchObject({
        deadLetterTargetArn: dlq.Attributes?.QueueArn,
        maxReceiveCount: Number(E2E_CONTEXT.maxReceiveCount),
      });
    }
    const { TimeToLiveDescription } = await dynamodb.send(
      new DescribeTimeToLiveCommand({ TableName: output('InboxTableName') }),
    );
    expect(TimeToLiveDescription).toMatchObject({
      AttributeName: 'expiresAt',
      TimeToLiveStatus: 'ENABLED',
    });
    for (const table of [
      'InboxTableName',
      'AccountsTableName',
      'LedgerEntriesTableName',
      'StockTableName',
      'OrdersTableName',
      'NotificationsTableName',
    ]) {
      const { ContinuousBackupsDescription } = await dynamodb.send(
        new DescribeContinuousBackupsCommand({ TableName: output(table) }),
      );
      expect(
        ContinuousBackupsDescription?.PointInTimeRecoveryDescription?.PointInTimeRecoveryStatus,
      ).toBe('ENABLED');
    }
  });

  it('is fed by the payments topic and the orders bus the stack declares', async () => {
    const found = await upstreams();

    expect(found.upstreamOf('ledger')).toMatchObject({
      kind: 'sns',
      topicArn: output('PaymentsTopicArn'),
      raw: false,
    });
    expect(found.upstreamOf('inventory')).toMatchObject({
      kind: 'eventbridge',
      busName: output('OrdersBusName'),
      source: 'shop.orders',
      detailType: 'OrderPlaced',
    });
  });

  it('ledger: applies a payment published once and delivered twice once, dead-letters a conflicting payment with its reason on its last receive, and the partial batch response is honoured', async () => {
    const first = payment(`acc-${randomUUID()}`);
    const published = (body: ReturnType<typeof payment>) => ({
      consumer: 'ledger' as const,
      body: JSON.stringify(body),
      groupId: body.accountId,
    });
    await (await upstreams()).send([published(first)]);
    await eventually(
      'the first payment to be recorded',
      () => getItem('LedgerEntriesTableName', { paymentId: first.paymentId }),
      Boolean,
    );

    // Held back while the mapping is off, the three arrive in one batch: one commits, one is
    // its upstream duplicate (SNS's envelope delivered again as a new SQS message), one fails its
    // condition (a different event for a recorded payment).
    const fresh = payment(`acc-${randomUUID()}`);
    const conflicting = { ...first, eventId: `evt-${randomUUID()}`, amountCents: 9_999 };
    const sender = await upstreams();
    await withMappingDisabled('LedgerFunctionName', () =>
      sender.send([published(fresh), published(fresh), published(conflicting)]),
    );

    const dead = await eventually(
      'the conflicting payment in the DLQ',
      () => drain(output('LedgerDeadLetterQueueUrl')),
      (messages) => messages.length > 0,
      150_000,
    );
    expect(dead.map((message) => JSON.parse(payloadOf(message.Body ?? '{}')).eventId)).toEqual([
      conflicting.eventId,
    ]);
    expect(JSON.parse(dead[0]?.Body ?? '{}')).toMatchObject({
      Type: 'Notification',
      TopicArn: output('PaymentsTopicArn'),
    });
    // The function knows maxReceiveCount (the construct's INBOX_MAX_RECEIVE_COUNT): on the last
    // receive it dead-letters the message itself, with the reason, instead of SQS moving it.
    expect(dead[0]?.MessageAttributes?.[DeadLetterAttribute.Error]?.StringValue).toBe(
      'BusinessConditionFailedError',
    );
    await eventually(
      'the ledger queue to drain',
      () => queueDepth(sqs, output('LedgerQueueUrl')),
      (depth) => depth === 0,
    );

    expect(
      Number((await getItem('AccountsTableName', { accountId: fresh.accountId }))?.balanceCents),
    ).toBe(fresh.amountCents);
    expect(
      Number((await getItem('AccountsTableName', { accountId: first.accountId }))?.balanceCents),
    ).toBe(first.amountCents);
    expect(await getItem('LedgerEntriesTableName', { paymentId: first.paymentId })).toMatchObject({
      eventId: first.eventId,
      amountCents: first.amountCents,
    });
    // One invocation held all three and reported only the conflicting one as failed...
    await eventually(
      'the batch with a committed, a duplicate and a failed record',
      () => logLines('Ledger', 'batch processed', '"records":3'),
      (lines) =>
        lines.some(
          (line) =>
            /"processed":1/.test(line) && /"duplicate":1/.test(line) && /"failed":1/.test(line),
        ),
    );
    // ...and only that one came back: had the whole batch been retried, the committed payment
    // would have been acknowledged as a duplicate again; had none been, the DLQ would be empty.
    const duplicates = await eventually(
      'the duplicate to be logged',
      () => logLines('Ledger', keyHash(fresh.eventId), 'duplicate message acknowledged'),
      (lines) => lines.length > 0,
    );
    expect(duplicates).toHaveLength(1);
  });

  it('inventory: reserves an order put on the bus once and delivered twice once, and records a short order as rejected, a business outcome', async () => {
    const sku = `sku-${randomUUID()}`;
    await documentClient.send(
      new PutCommand({ TableName: output('StockTableName'), Item: { sku, available: 5 } }),
    );
    const reserved = {
      eventId: `evt-${randomUUID()}`,
      orderId: `ord-${randomUUID()}`,
      lines: [{ sku, quantity: 2 }],
    };
    const short = {
      eventId: `evt-${randomUUID()}`,
      orderId: `ord-${randomUUID()}`,
      lines: [{ sku, quantity: 50 }],
    };

    await (await upstreams()).send(
      [reserved, reserved, short].map((body) => ({
        consumer: 'inventory' as const,
        body: JSON.stringify(body),
      })),
    );

    await eventually(
      'both orders to be decided',
      async () => [
        await getItem('OrdersTableName', { orderId: reserved.orderId }),
        await getItem('OrdersTableName', { orderId: short.orderId }),
      ],
      (orders) => orders.every(Boolean),
    );
    await eventually(
      'the inventory queue to drain',
      () => queueDepth(sqs, output('InventoryQueueUrl')),
      (depth) => depth === 0,
    );
    expect(await getItem('OrdersTableName', { orderId: reserved.orderId })).toMatchObject({
      status: 'RESERVED',
    });
    expect(await getItem('OrdersTableName', { orderId: short.orderId })).toMatchObject({
      status: 'REJECTED',
      shortSkus: [sku],
    });
    expect(await getItem('StockTableName', { sku })).toMatchObject({ available: 3, reserved: 2 });
  });

  it('inventory: dead-letters at once, with its reason, a message sent to its queue that is no EventBridge event', async () => {
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: output('InventoryQueueUrl'),
        MessageBody: '{"eventId": "truncated',
      }),
    );

    const [message] = await eventually(
      'the malformed message in the DLQ',
      () => drain(output('InventoryDeadLetterQueueUrl')),
      (messages) => messages.length > 0,
    );

    expect(message?.MessageAttributes?.['inbox.error']?.StringValue).toBe('EnvelopeMismatchError');
    expect(message?.MessageAttributes?.['inbox.errorMessage']?.StringValue).toMatch(
      /the body is not JSON, which the declared sources \(eventbridge\) do not deliver/,
    );
    expect(message?.MessageAttributes?.['inbox.consumer']?.StringValue).toBe('inventory');
    expect(message?.Attributes?.ApproximateReceiveCount).toBe('1');
  });

  it('ledger → outbox relay → notifier: a payment with its payer credited once is relayed by the relay on the outbox stream (the emulator’s own mapping) and notified once', async () => {
    const credited = payment(`acc-${randomUUID()}`, { email: 'payer@example.com' });
    await (await upstreams()).send([
      { consumer: 'ledger', body: JSON.stringify(credited), groupId: credited.accountId },
    ]);

    const notified = await eventually(
      'the credited payment to be notified through the outbox',
      () => getItem('NotificationsTableName', { eventId: credited.eventId }),
      Boolean,
      120_000,
    );
    expect(notified).toMatchObject({ paymentId: credited.paymentId });
    const entry = await getItem('InboxTableName', { pk: inboxPk('notifier', credited.eventId) });
    expect(entry).toMatchObject({ status: 'COMPLETED' });
    expect(await queueDepth(sqs, output('LedgerOutboxDeadLetterQueueUrl'))).toBe(0);
  });

  it('runbook: `sqs-inbox outbox redrive` (a dry run, then --apply) sends a notification the relay dead-lettered again with its outbox id, and the deployed notifier records it once', async () => {
    const notification = { ...payment(`acc-${randomUUID()}`), email: 'payer@example.com' };
    const id = outboxMessageId('ledger', notification.eventId, { name: 'credited' });
    // What the relay dead-letters when the notifier's queue refused it (a grant missing, say).
    const letter = {
      kind: OUTBOX_DEAD_LETTER_KIND,
      reason: { error: 'DestinationRefusedError', code: 'AccessDenied', message: 'denied' },
      message: {
        id,
        kind: 'sqs',
        destination: output('NotifierQueueUrl'),
        body: JSON.stringify(notification),
      },
      record: { sequenceNumber: '1' },
      failedAt: new Date().toISOString(),
    };
    const queue = output('LedgerOutboxDeadLetterQueueUrl');
    await sqs.send(
      new SendMessageCommand({ QueueUrl: queue, MessageBody: JSON.stringify(letter) }),
    );
    const env = {
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL: endpoint,
    };

    const dry = await sqsInbox(['outbox', 'redrive', '--queue-url', queue, '--jsonl'], env);
    const run = await sqsInbox(
      ['outbox', 'redrive', '--queue-url', queue, '--apply', '--jsonl'],
      env,
    );

    expect(jsonLines(dry.stdout)[0]).toMatchObject({ status: 'wouldRedrive', outboxIds: [id] });
    expect(dry.code, dry.stderr).toBe(1);
    const [outcome, summary] = jsonLines(run.stdout);
    expect(outcome).toMatchObject({ status: 'redriven', kind: 'message', outboxIds: [id] });
    expect(summary).toMatchObject({
      queueUrl: queue,
      apply: true,
      letters: 1,
      groups: [{ kind: 'message', status: 'redriven', count: 1 }],
    });
    expect(run.code, run.stderr).toBe(0);
    expect(await queueDepth(sqs, queue)).toBe(0);
    const recorded = await eventually(
      'the redriven notification to be recorded',
      () => getItem('NotificationsTableName', { eventId: notification.eventId }),
      Boolean,
      120_000,
    );
    expect(recorded).toMatchObject({ paymentId: notification.paymentId });
  }, 180_000);

  it('notifier: for a notification sent twice with its outbox id, emails the payer once through SES, writes one receipt to S3 and records both steps and the notification, all on the emulator', async () => {
    const notification = {
      ...payment(`acc-${randomUUID()}`),
      email: 'payer@example.com',
    };
    // As the ledger's relay sends it, twice: the same outbox id each time.
    const send = () =>
      sqs.send(
        new SendMessageCommand({
          QueueUrl: output('NotifierQueueUrl'),
          MessageBody: JSON.stringify(notification),
          MessageAttributes: {
            [OutboxMessageIdField.Attribute]: {
              DataType: 'String',
              StringValue: outboxMessageId('ledger', notification.eventId, { name: 'credited' }),
            },
          },
        }),
      );
    await send();
    const recorded = await eventually(
      'the notification to be recorded',
      () => getItem('NotificationsTableName', { eventId: notification.eventId }),
      Boolean,
    );
    await send();
    await eventually(
      'the copy to be consumed',
      () => queueDepth(sqs, output('NotifierQueueUrl')),
      (depth) => depth === 0,
    );

    const emails = (await readSentEmails(endpoint)).filter((email) =>
      email.subject.includes(`(${notification.eventId})`),
    );
    expect(emails).toEqual([
      expect.objectContaining({
        from: output('NotifierSenderAddress'),
        to: ['payer@example.com'],
        subject: `Payment ${notification.paymentId} received (${notification.eventId})`,
        bodyText: expect.stringContaining(
          `Reference: ${stepIdempotencyKey('notifier', notification.eventId, 'email')}`,
        ),
      }),
    ]);
    expect(recorded).toMatchObject({
      paymentId: notification.paymentId,
      emailMessageId: emails[0]?.messageId,
      receiptKey: `receipts/${notification.paymentId}.json`,
    });
    const receipt = await s3.send(
      new GetObjectCommand({
        Bucket: output('ReceiptsBucketName'),
        Key: `receipts/${notification.paymentId}.json`,
      }),
    );
    const { email: _email, ...expectedReceipt } = notification;
    expect(JSON.parse(await (receipt.Body?.transformToString() ?? ''))).toEqual(expectedReceipt);
    const entry = await getItem('InboxTableName', {
      pk: inboxPk('notifier', notification.eventId),
    });
    expect(entry).toMatchObject({ status: 'COMPLETED', attempts: 1 });
    expect(Object.keys(entry?.steps ?? {}).sort()).toEqual(['email', 'receipt']);
  });
});
