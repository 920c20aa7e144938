import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CloudWatchLogsClient,
  DescribeLogGroupsCommand,
  FilterLogEventsCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { DescribeTimeToLiveCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  GetQueueAttributesCommand,
  type GetQueueAttributesCommandOutput,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
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
afterAll(() => {
  for (const client of [sqs, dynamodb, logs]) client.destroy();
});

const output = (name: string): string => {
  const value = outputs[name];
  if (!value)
    throw new Error(`stack output ${name} is missing; outputs: ${Object.keys(outputs).join(', ')}`);
  return value;
};

/** Polls `read` until `done` holds for its value, or fails after `timeoutMillis` naming `what`. */
async function eventually<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMillis = 90_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMillis;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (done(last)) return last;
    await sleep(500);
  }
  throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last)}`);
}

const getItem = async (tableOutput: string, key: Record<string, string>) =>
  (
    await documentClient.send(
      new GetCommand({ TableName: output(tableOutput), Key: key, ConsistentRead: true }),
    )
  ).Item;

async function drain(queueUrl: string): Promise<Message[]> {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 1,
      MessageAttributeNames: ['All'],
      MessageSystemAttributeNames: ['All'],
    }),
  );
  return Messages;
}

async function queueDepth(queueUrl: string): Promise<number> {
  const { Attributes = {} }: GetQueueAttributesCommandOutput = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes.ApproximateNumberOfMessages ?? 0) +
    Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
}

/**
 * The function's log lines containing `pattern`. The function logs to its own log group
 * (LoggingConfig); an emulator may still use the default `/aws/lambda/<name>`, so both are read.
 */
async function logLines(consumer: 'Ledger' | 'Inventory', pattern: string): Promise<string[]> {
  const groups = [
    output(`${consumer}LogGroupName`),
    `/aws/lambda/${output(`${consumer}FunctionName`)}`,
  ];
  const lines: string[] = [];
  for (const logGroupName of groups) {
    const { logGroups = [] } = await logs.send(
      new DescribeLogGroupsCommand({ logGroupNamePrefix: logGroupName }),
    );
    if (!logGroups.some((group) => group.logGroupName === logGroupName)) continue;
    const { events = [] } = await logs.send(
      new FilterLogEventsCommand({ logGroupName, filterPattern: `"${pattern}"` }),
    );
    lines.push(
      ...events.map((event) => event.message ?? '').filter((message) => message.includes(pattern)),
    );
  }
  return lines;
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
  it('put the redrive policy, TTL and PITR in force, applying what the emulator dropped', async () => {
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: output('LedgerQueueUrl'),
        AttributeNames: ['RedrivePolicy'],
      }),
    );

    expect(JSON.parse(Attributes?.RedrivePolicy ?? '{}')).toMatchObject({
      maxReceiveCount: Number(E2E_CONTEXT.maxReceiveCount),
    });
    const { TimeToLiveDescription } = await dynamodb.send(
      new DescribeTimeToLiveCommand({ TableName: output('InboxTableName') }),
    );
    expect(TimeToLiveDescription).toMatchObject({
      AttributeName: 'expiresAt',
      TimeToLiveStatus: 'ENABLED',
    });
  });

  it('ledger: applies a payment once, acknowledges its duplicate, and dead-letters a conflicting payment after maxReceiveCount receives, honouring the partial batch response', async () => {
    const first = payment(`acc-${randomUUID()}`);
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: output('LedgerQueueUrl'),
        MessageBody: JSON.stringify(first),
        MessageGroupId: first.accountId,
        MessageDeduplicationId: randomUUID(),
      }),
    );
    await eventually(
      'the first payment to be recorded',
      () => getItem('LedgerEntriesTableName', { paymentId: first.paymentId }),
      Boolean,
    );

    const fresh = payment(`acc-${randomUUID()}`);
    const conflicting = { ...first, eventId: `evt-${randomUUID()}`, amountCents: 9_999 };
    const entries = [
      { body: fresh, group: fresh.accountId },
      { body: fresh, group: fresh.accountId },
      { body: conflicting, group: conflicting.accountId },
    ];
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: output('LedgerQueueUrl'),
        Entries: entries.map(({ body, group }, index) => ({
          Id: String(index),
          MessageBody: JSON.stringify(body),
          MessageGroupId: group,
          MessageDeduplicationId: randomUUID(),
        })),
      }),
    );

    const dead = await eventually(
      'the conflicting payment in the DLQ',
      () => drain(output('LedgerDeadLetterQueueUrl')),
      (messages) => messages.length > 0,
    );
    expect(dead.map((message) => JSON.parse(message.Body ?? '{}').eventId)).toEqual([
      conflicting.eventId,
    ]);
    expect(Number(dead[0]?.Attributes?.ApproximateReceiveCount)).toBeGreaterThanOrEqual(
      Number(E2E_CONTEXT.maxReceiveCount),
    );
    await eventually(
      'the ledger queue to drain',
      () => queueDepth(output('LedgerQueueUrl')),
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
    const duplicates = await logLines('Ledger', 'duplicate message acknowledged');
    expect(duplicates.filter((line) => line.includes(fresh.eventId))).toHaveLength(1);
  });

  it('inventory: reserves an order once and records a short order as rejected, a business outcome', async () => {
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

    for (const body of [reserved, reserved, short]) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: output('InventoryQueueUrl'),
          MessageBody: JSON.stringify(body),
        }),
      );
    }

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
      () => queueDepth(output('InventoryQueueUrl')),
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

  it('inventory: sends a malformed message to the DLQ at once, with the reason in its attributes', async () => {
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

    expect(message?.MessageAttributes?.['inbox.error']?.StringValue).toBe('MessageParseError');
    expect(message?.MessageAttributes?.['inbox.consumer']?.StringValue).toBe('inventory');
    expect(message?.Attributes?.ApproximateReceiveCount).toBe('1');
  });
});
