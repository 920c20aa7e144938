import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { OutboxMessageIdField, outboxMessageId } from '../../src/constants/index.js';
import { eventually } from '../support/eventually.js';
import { sqsInbox } from '../support/operatorCli.js';
import { takeMessages } from '../support/receiveMessages.js';

// The stack globalSetup deployed for every e2e file: no deployment of its own. The notifier is
// the consumer here because no other test reads its DLQ.
const { endpoint, outputs } = inject('deployed');
const config = {
  endpoint,
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
};
const sqs = new SQSClient(config);
const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient(config));
afterAll(() => {
  sqs.destroy();
  documentClient.destroy();
});

/** What an operator's shell holds: credentials, a region and the one emulator endpoint. */
const OPERATOR_ENVIRONMENT = {
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  AWS_REGION: 'us-east-1',
  AWS_ENDPOINT_URL: endpoint,
};

const output = (name: string): string => {
  const value = outputs[name];
  if (!value) throw new Error(`stack output ${name} is missing`);
  return value;
};

async function queueArn(url: string): Promise<string> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  return Attributes?.QueueArn ?? '';
}

/** A payment notification as the ledger's relay sends it: its body and its outbox id. */
function notification() {
  const eventId = `evt-${randomUUID()}`;
  return {
    body: JSON.stringify({
      eventId,
      accountId: `acc-${randomUUID()}`,
      paymentId: `pay-${randomUUID()}`,
      amountCents: 2500,
      currency: 'EUR',
      email: 'payer@example.com',
    }),
    eventId,
    outboxId: outboxMessageId('ledger', eventId, { name: 'credited' }),
  };
}

/** Sends a notification to `queueUrl` with its outbox id, as the relay (or a redrive-policy move) leaves it. */
async function send(queueUrl: string, message: ReturnType<typeof notification>): Promise<string> {
  const { MessageId } = await sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: message.body,
      MessageAttributes: {
        [OutboxMessageIdField.Attribute]: { DataType: 'String', StringValue: message.outboxId },
      },
    }),
  );
  return MessageId ?? '';
}

async function command(args: readonly string[]) {
  const result = await sqsInbox(args, OPERATOR_ENVIRONMENT);
  return { ...result, json: () => JSON.parse(result.stdout) };
}

describe('sqs-inbox --function on the deployed reference stack', () => {
  it("finds the notifier's inbox table, consumer, DLQ and source queue from its function and event source mapping", async () => {
    const fn = output('NotifierFunctionName');
    const dlqUrl = output('NotifierDeadLetterQueueUrl');
    const [dlqArn, sourceArn] = await Promise.all([
      queueArn(dlqUrl),
      queueArn(output('NotifierQueueUrl')),
    ]);
    const applied = notification();
    await send(output('NotifierQueueUrl'), applied);
    await eventually(
      'the deployed notifier to record the notification',
      async () =>
        (
          await documentClient.send(
            new GetCommand({
              TableName: output('NotificationsTableName'),
              Key: { eventId: applied.eventId },
              ConsistentRead: true,
            }),
          )
        ).Item,
      Boolean,
      120_000,
    );
    // In the DLQ as the redrive policy moves a message: no reason, no source recorded.
    const never = notification();
    const dlqIds = { applied: await send(dlqUrl, applied), never: await send(dlqUrl, never) };

    const shown = await command(['message', '--function', fn, '--key', applied.eventId, '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.json()).toMatchObject({ consumer: 'notifier', status: 'COMPLETED', attempts: 1 });
    expect(
      shown
        .json()
        .steps.map((step: { name: string }) => step.name)
        .sort(),
    ).toEqual(['email', 'receipt']);

    const fromDlq = await command([
      'message',
      '--function',
      fn,
      '--from-dlq',
      dlqIds.applied,
      '--json',
    ]);
    expect(fromDlq.code, fromDlq.stderr).toBe(0);
    expect(fromDlq.json()).toMatchObject({ consumer: 'notifier', status: 'COMPLETED' });

    const report = await command(['dlq', 'report', '--function', fn, '--json']);
    expect(report.code, report.stderr).toBe(1);
    expect(report.json()).toMatchObject({
      consumer: 'notifier',
      queueArn: dlqArn,
      messagesRead: 2,
      groups: [{ reason: 'no reason recorded', count: 2 }],
    });

    const dryRun = await command(['dlq', 'redrive', '--function', fn, '--jsonl']);
    expect(dryRun.code, dryRun.stderr).toBe(0);
    const lines = dryRun.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const decided = Object.fromEntries(
      lines
        .filter((line) => line.dlqMessageId)
        .map((line) => [line.dlqMessageId, [line.decision, line.action, line.sourceQueueArn]]),
    );
    expect(decided).toEqual({
      [dlqIds.applied]: ['already-applied', 'would-delete', sourceArn],
      [dlqIds.never]: ['retry', 'would-send', sourceArn],
    });
    expect(lines.at(-1)).toMatchObject({ consumer: 'notifier', queueArn: dlqArn, apply: false });
    expect(await takeMessages(sqs, dlqUrl, 2)).toHaveLength(2);
  }, 240_000);
});
