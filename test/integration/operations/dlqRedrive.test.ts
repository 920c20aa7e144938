import { randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { DeadLetterAttribute, inboxPk } from '../../../src/constants/index.js';
import { hashPayload } from '../../../src/core/inboxEntry.js';
import { keyHash } from '../../../src/core/loggedKey.js';
import type { MessageHandler } from '../../../src/index.js';
import { toRecord } from '../../../tools/local/LocalEventSourceMapping.js';
import { deadLetterQueues } from '../../support/deadLetterPayments.js';
import {
  ledgerProcessor,
  type PaymentCaptured,
  payment,
  useLedger,
} from '../../support/ledgerFixture.js';
import { ledgerRedrive } from '../../support/ledgerRedrive.js';
import { messageLines } from '../../support/messageLines.js';
import { sqsInbox, standardAwsEnvironment } from '../../support/operatorCli.js';
import { receiveMessages, takeMessages } from '../../support/receiveMessages.js';
import { sqsEvent } from '../../support/sqsRecords.js';

const { aws, ledger } = useLedger();
/** In every body: no command may print it. */
const MARKER = `marker-${randomUUID()}`;

/** A ledger consumer whose handler journals a `notify` step, and fails for chosen events. */
function stepConsumer() {
  const stepRuns = new Map<string, number>();
  const failing = new Set<string>();
  const handler: MessageHandler<PaymentCaptured> = async (message, tx) => {
    await message.step('notify', async () => {
      stepRuns.set(message.body.eventId, (stepRuns.get(message.body.eventId) ?? 0) + 1);
      return { sent: true };
    });
    if (failing.has(message.body.eventId)) throw new Error('the downstream is down');
    await ledger.applyPayment(message, tx);
  };
  const processor = ledgerProcessor(handler, { store: ledger.store, consumer: 'ledger' });
  return { processor, stepRuns, failing };
}

async function setUp() {
  const { dlq, source } = await deadLetterQueues(aws, 'ops');
  const consumer = stepConsumer();
  const body = (event: PaymentCaptured) => JSON.stringify({ ...event, note: MARKER });
  const process = async (event: PaymentCaptured) => {
    const record = toRecord(
      {
        MessageId: randomUUID(),
        Body: body(event),
        ReceiptHandle: 'r',
        Attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()) },
      },
      source.arn,
    );
    return (await consumer.processor.processRecords(sqsEvent(record)))[0];
  };
  /** A copy in the DLQ: as the library dead-letters (reason, consumer, source, key hash), or as the redrive policy moves (nothing). */
  const deadLetter = async (text: string, reason?: string, key?: string) => {
    const attributes = reason
      ? {
          [DeadLetterAttribute.Error]: { DataType: 'String', StringValue: reason },
          [DeadLetterAttribute.Consumer]: { DataType: 'String', StringValue: 'ledger' },
          [DeadLetterAttribute.OriginalMessageId]: {
            DataType: 'String',
            StringValue: randomUUID(),
          },
          [DeadLetterAttribute.SourceQueueArn]: { DataType: 'String', StringValue: source.arn },
          ...(key
            ? { [DeadLetterAttribute.KeyHash]: { DataType: 'String', StringValue: keyHash(key) } }
            : {}),
        }
      : undefined;
    const { MessageId } = await aws.sqs.send(
      new SendMessageCommand({
        QueueUrl: dlq.url,
        MessageBody: text,
        MessageAttributes: attributes,
      }),
    );
    return MessageId ?? '';
  };
  const redrive = ledgerRedrive(ledger, dlq, { queue: source });
  return { dlq, source, consumer, body, process, deadLetter, redrive };
}

describe('sqs-inbox dlq redrive, on a DLQ of every kind of message', () => {
  it('decides each message by its inbox entry, sends back only what never committed, and a consumer then applies every key once, the journaled step not run again', async () => {
    const s = await setUp();
    const env = standardAwsEnvironment(aws);
    const accounts = Object.fromEntries(
      ['applied', 'conflict', 'never', 'permanent', 'leased', 'failed'].map((name) => [
        name,
        `acc-${name}-${randomUUID()}`,
      ]),
    );
    const events = Object.fromEntries(
      Object.entries(accounts).map(([name, accountId]) => [
        name,
        payment({ accountId, amountCents: 100 }),
      ]),
    ) as Record<string, PaymentCaptured>;
    const e = (name: string) => events[name] as PaymentCaptured;

    expect((await s.process(e('applied')))?.status).toBe('processed');
    expect((await s.process(e('conflict')))?.status).toBe('processed');
    s.consumer.failing.add(e('failed').eventId);
    expect((await s.process(e('failed')))?.status).toBe('failed');
    s.consumer.failing.delete(e('failed').eventId);
    const leasedBody = s.body(e('leased'));
    const now = Date.now();
    await ledger.store.claim({
      entry: {
        pk: inboxPk('ledger', e('leased').eventId),
        consumer: 'ledger',
        key: e('leased').eventId,
        messageId: 'another-attempt',
        payloadHash: hashPayload(leasedBody),
        expiresAt: Math.floor(now / 1000) + 86_400,
      },
      payloadHashes: [hashPayload(leasedBody)],
      owner: 'another-attempt',
      nowMillis: now,
      leaseUntilMillis: now + 600_000,
    });

    const ids = {
      applied: await s.deadLetter(s.body(e('applied'))),
      conflict: await s.deadLetter(s.body({ ...e('conflict'), amountCents: 999 })),
      never: await s.deadLetter(s.body(e('never')), 'TransientStoreError', e('never').eventId),
      permanent: await s.deadLetter(
        s.body(e('permanent')),
        'SchemaValidationError',
        e('permanent').eventId,
      ),
      leased: await s.deadLetter(leasedBody, 'LeaseHeldError', e('leased').eventId),
      failed: await s.deadLetter(s.body(e('failed')), 'Error', e('failed').eventId),
      keyless: await s.deadLetter(
        JSON.stringify({ accountId: 'acc-x', note: MARKER }),
        'SchemaValidationError',
      ),
    };

    const dry = await sqsInbox([...s.redrive, '--json'], env);
    expect(dry.code, dry.stderr).toBe(1);
    expect(JSON.parse(dry.stdout)).toMatchObject({
      apply: false,
      sent: 0,
      deleted: 0,
      messages: 7,
    });
    expect(await receiveMessages(aws.sqs, s.source.url)).toEqual([]);

    const applied = await sqsInbox([...s.redrive, '--apply', '--jsonl'], env);
    expect(applied.code, applied.stderr).toBe(1);
    const decisions = Object.fromEntries(
      messageLines(applied.stdout).map((line) => [line.dlqMessageId, [line.decision, line.action]]),
    );
    expect(decisions).toEqual({
      [ids.applied]: ['already-applied', 'deleted'],
      [ids.conflict]: ['conflict', 'kept'],
      [ids.never]: ['retry', 'sent'],
      [ids.permanent]: ['permanent', 'kept'],
      [ids.leased]: ['in-flight', 'kept'],
      [ids.failed]: ['retry', 'sent'],
      [ids.keyless]: ['unknown-key', 'kept'],
    });
    for (const output of [dry.stdout, dry.stderr, applied.stdout, applied.stderr])
      expect(output).not.toContain(MARKER);

    const sentBack = await takeMessages(aws.sqs, s.source.url, 2);
    expect(sentBack).toHaveLength(2);
    for (const message of sentBack) {
      expect(message.MessageAttributes?.[DeadLetterAttribute.RedriveOf]?.StringValue).toBeDefined();
      expect(message.MessageAttributes?.[DeadLetterAttribute.Error]).toBeUndefined();
      await s.consumer.processor.processRecords(sqsEvent(toRecord(message, s.source.arn)));
    }
    const again = await sqsInbox([...s.redrive, '--apply', '--json'], env);
    expect(JSON.parse(again.stdout)).toMatchObject({ sent: 0, deleted: 0, kept: 4 });

    expect(await ledger.balanceOf(accounts.applied as string)).toBe(100);
    expect(await ledger.balanceOf(accounts.conflict as string)).toBe(100);
    expect(await ledger.balanceOf(accounts.never as string)).toBe(100);
    expect(await ledger.balanceOf(accounts.failed as string)).toBe(100);
    expect(await ledger.balanceOf(accounts.permanent as string)).toBe(0);
    expect(s.consumer.stepRuns.get(e('failed').eventId)).toBe(1);
  }, 120_000);
});
