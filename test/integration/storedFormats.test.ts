import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InboxStatus,
  inboxPk,
  OutboxMessageIdField,
  outboxMessageId,
} from '../../src/constants/index.js';
import { hashPayload } from '../../src/core/inboxEntry.js';
import { FormatVersionError } from '../../src/errors.js';
import { type MessageHandler, Precheck, RecordStatus } from '../../src/index.js';
import {
  OUTBOX_DEAD_LETTER_KIND,
  type OutboxDeadLetter,
} from '../../src/outbox/OutboxDeadLetter.js';
import type { OutgoingMessage } from '../../src/outbox/OutgoingMessage.js';
import { outboxItem, outboxItemCommon } from '../../src/outbox/outboxItem.js';
import { itemPlanOf } from '../../src/outbox/planOutboxItems.js';
import { AwsOutboxSender, redriveOutbox } from '../../src/relay/index.js';
import {
  ledgerProcessor,
  type PaymentCaptured,
  payment,
  useLedger,
} from '../support/ledgerFixture.js';
import { takeMessages } from '../support/receiveMessages.js';
import { startRelay } from '../support/relayOutbox.js';
import { sqsEvent, sqsRecord } from '../support/sqsRecords.js';

const { aws, ledger } = useLedger();
const CONSUMER = 'formats';
const NOW_SECONDS = Math.floor(Date.now() / 1000);

/** A payment's SQS record and the entry fields 0.1.0 stored for it, without formatVersion. */
function previousRelease(event: PaymentCaptured, status: InboxStatus) {
  const record = sqsRecord(event);
  const entry = {
    pk: inboxPk(CONSUMER, event.eventId),
    consumer: CONSUMER,
    key: event.eventId,
    messageId: 'm-0.1.0',
    status,
    payloadHash: hashPayload(record.body),
    expiresAt: NOW_SECONDS + 86_400,
  };
  return { record, entry };
}

async function store(item: Record<string, unknown>, TableName = ledger.tables.inbox) {
  await aws.documentClient.send(new PutCommand({ TableName, Item: item }));
}

async function stored(pk: string, TableName = ledger.tables.inbox) {
  const { Item } = await aws.documentClient.send(
    new GetCommand({ TableName, Key: { pk }, ConsistentRead: true }),
  );
  return Item;
}

function processor(handler: MessageHandler<PaymentCaptured>, precheck: Precheck) {
  return ledgerProcessor(handler, {
    store: ledger.store,
    consumer: CONSUMER,
    performance: { precheck: precheck },
  });
}

describe('inbox entries of the previous format (0.1.0, no formatVersion)', () => {
  it.each([Precheck.Before, Precheck.Off])(
    'makes a copy of a message committed by 0.1.0 a duplicate, found by the batch read or the commit (precheck %s)',
    async (precheck) => {
      const event = payment({ accountId: `acc-${precheck}` });
      const { record, entry } = previousRelease(event, InboxStatus.Completed);
      await store({ ...entry, processedAt: '2026-11-01T00:00:00.000Z' });

      const [outcome] = await processor(ledger.applyPayment, precheck).processRecords(
        sqsEvent(record),
      );

      expect(outcome?.status).toBe(RecordStatus.Duplicate);
      expect(await ledger.balanceOf(event.accountId)).toBe(0);
      expect(await stored(entry.pk)).not.toHaveProperty('formatVersion');
    },
  );

  it('resumes an entry 0.1.0 released with a journaled step: the step is replayed, not run, and the claim stamps version 1', async () => {
    const event = payment({ accountId: 'acc-resumed' });
    const { record, entry } = previousRelease(event, InboxStatus.Failed);
    await store({
      ...entry,
      attempts: 1,
      leaseEpoch: 1,
      lastError: { name: 'Error', at: '2026-11-01T00:00:00.000Z' },
      steps: { charge: { result: '{"chargeId":"ch-0.1.0"}', at: '2026-11-01T00:00:00.000Z' } },
    });
    const charges: string[] = [];
    const handler: MessageHandler<PaymentCaptured> = async (message, tx) => {
      const charge = await message.step('charge', () => {
        charges.push('ran');
        return { chargeId: 'ch-new' };
      });
      expect(charge).toEqual({ chargeId: 'ch-0.1.0' });
      ledger.credit(message.body, tx);
    };

    const [outcome] = await processor(handler, Precheck.Before).processRecords(sqsEvent(record));

    expect(outcome?.status).toBe(RecordStatus.Processed);
    expect(charges).toEqual([]);
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
    expect(await stored(entry.pk)).toMatchObject({
      status: InboxStatus.Completed,
      formatVersion: 1,
      leaseEpoch: 2,
      steps: { charge: { result: '{"chargeId":"ch-0.1.0"}' } },
    });
  });
});

describe('inbox entries of a newer format version', () => {
  it.each([
    ['a committed entry, step-less', InboxStatus.Completed, false],
    ['a released entry of the same payload, step-less', InboxStatus.Failed, false],
    ['a released entry of the same payload, with steps', InboxStatus.Failed, true],
  ])(
    'fails the record with FormatVersionError and leaves %s as it is',
    async (_, status, withSteps) => {
      const event = payment({ accountId: `acc-newer-${status}-${withSteps}` });
      const { record, entry } = previousRelease(event, status);
      const newer = { ...entry, formatVersion: 2, steps: { charge: { ref: 's3://b/k' } } };
      await store(newer);
      const handler: MessageHandler<PaymentCaptured> = async (message, tx) => {
        if (withSteps) await message.step('charge', () => ({ chargeId: 'ch-1' }));
        ledger.credit(message.body, tx);
      };

      const [outcome] = await processor(handler, Precheck.Before).processRecords(sqsEvent(record));

      expect(outcome?.status).toBe(RecordStatus.Failed);
      expect(outcome?.error).toBeInstanceOf(FormatVersionError);
      expect(outcome?.error).toMatchObject({ stored: 'inboxEntry', version: 2, newest: 1 });
      expect(await stored(entry.pk)).toEqual(newer);
      expect(await ledger.balanceOf(event.accountId)).toBe(0);
    },
  );

  it('dead-letters the message on its last receive with FormatVersionError as its reason, the entry left as it is', async () => {
    const dlq = await aws.createQueue(aws.uniqueName('dlq'));
    const event = payment({ accountId: 'acc-newer-last' });
    const { entry } = previousRelease(event, InboxStatus.Completed);
    const newer = { ...entry, formatVersion: 2 };
    await store(newer);
    const record = sqsRecord(event, { receiveCount: 3 });

    const [outcome] = await ledgerProcessor(ledger.applyPayment, {
      store: ledger.store,
      consumer: CONSUMER,
      deadLetter: { maxReceiveCount: 3, queueUrl: dlq.url, client: aws.sqs },
    }).processRecords(sqsEvent(record));

    expect(outcome?.status).toBe(RecordStatus.DeadLettered);
    const [letter] = await takeMessages(aws.sqs, dlq.url, 1);
    expect(letter?.Body).toBe(record.body);
    expect(letter?.MessageAttributes?.['inbox.error']?.StringValue).toBe('FormatVersionError');
    expect(await stored(entry.pk)).toEqual(newer);
  });

  it("leaves an entry of a newer format version out of the batch's read, which still spares the batch's other duplicates their handler", async () => {
    const newerEvent = payment({ accountId: 'acc-newer-batch' });
    const newer = previousRelease(newerEvent, InboxStatus.Completed);
    await store({ ...newer.entry, formatVersion: 2 });
    const committedEvent = payment({ accountId: 'acc-committed-batch' });
    const committed = previousRelease(committedEvent, InboxStatus.Completed);
    await store({ ...committed.entry, formatVersion: 1, processedAt: '2026-11-01T00:00:00.000Z' });
    const ran: string[] = [];
    const handler: MessageHandler<PaymentCaptured> = async (message, tx) => {
      ran.push(message.body.eventId);
      ledger.credit(message.body, tx);
    };

    const outcomes = await processor(handler, Precheck.Before).processRecords(
      sqsEvent(newer.record, committed.record),
    );

    expect(outcomes.map(({ status }) => status)).toEqual([
      RecordStatus.Failed,
      RecordStatus.Duplicate,
    ]);
    expect(ran).toEqual([newerEvent.eventId]);
  });
});

describe('the relay, reading outbox items written by older and newer consumers', () => {
  let outboxTable: string;
  let queues: Record<'audit' | 'credits' | 'dlq', { url: string }>;
  let relay: Awaited<ReturnType<typeof startRelay>>;

  beforeAll(async () => {
    outboxTable = await aws.createOutboxTable(aws.uniqueName('outbox'));
    queues = {
      audit: await aws.createQueue(aws.uniqueName('audit')),
      credits: await aws.createQueue(`${aws.uniqueName('credits')}.fifo`),
      dlq: await aws.createQueue(aws.uniqueName('relay-dlq')),
    };
    relay = await startRelay(aws, outboxTable, queues.dlq.url);
  });
  afterAll(() => relay?.stop());

  /** An outbox item as this release builds it: a message's own (audit), or a group's (credits). */
  function itemOf(name: string, to: 'audit' | 'credits') {
    const message: OutgoingMessage = {
      id: outboxMessageId(CONSUMER, name, { index: 0 }),
      destination: queues[to].url,
      body: `{"credited":"${name}"}`,
      ...(to === 'audit' ? { kind: 'sqs' } : { kind: 'sqs-fifo', groupId: 'acc-1' }),
    };
    const origin = { consumer: CONSUMER, keyHash: 'a'.repeat(16) };
    const common = outboxItemCommon(origin, Date.now(), 7 * 86_400);
    const seq = to === 'credits' ? { seq: 1 } : {};
    const item: Record<string, unknown> = { ...outboxItem(itemPlanOf(message), common), ...seq };
    return { message, item };
  }

  it("sends the messages of items of the previous format, without formatVersion (a message's own item and a group's), with their outbox ids", async () => {
    const own = itemOf('previous-own', 'audit');
    const group = itemOf('previous-group', 'credits');
    for (const { item } of [own, group]) {
      const { formatVersion, ...previous } = item;
      expect(formatVersion).toBe(1);
      await store(previous, outboxTable);
    }
    await relay.mapping.drain();

    for (const [{ message }, queue] of [
      [own, queues.audit],
      [group, queues.credits],
    ] as const) {
      const [sent] = await takeMessages(aws.sqs, queue.url, 1);
      expect(sent?.Body).toBe(message.body);
      expect(sent?.MessageAttributes?.[OutboxMessageIdField.Attribute]?.StringValue).toBe(
        message.id,
      );
    }
  });

  it('dead-letters an item of a newer format version whole, with its image and FormatVersionError, and sends none of it', async () => {
    const { item } = itemOf('newer', 'audit');
    await store({ ...item, formatVersion: 2, bodyEncoding: 'gzip' }, outboxTable);
    await relay.mapping.drain();

    const [letter] = await takeMessages(aws.sqs, queues.dlq.url, 1);
    const dead = JSON.parse(letter?.Body ?? '{}') as OutboxDeadLetter;
    expect(dead.reason).toMatchObject({ error: 'FormatVersionError' });
    expect(dead.reason.message).toMatch(/format version 2.*Upgrade the relay/);
    expect(dead.image).toMatchObject({ formatVersion: { N: '2' }, bodyEncoding: { S: 'gzip' } });
    expect(dead.message).toBeUndefined();
    expect(await takeMessages(aws.sqs, queues.audit.url, 1, 1_000)).toEqual([]);

    await aws.sqs.send(
      new SendMessageCommand({ QueueUrl: queues.dlq.url, MessageBody: letter?.Body }),
    );
    const outcomes = await redriveOutbox({
      deadLetter: { queueUrl: queues.dlq.url },
      sender: new AwsOutboxSender({ sqsClient: aws.sqs }),
    });
    expect(outcomes).toEqual([expect.objectContaining({ kind: 'record', status: 'left' })]);
    expect(outcomes[0]?.reason).toMatch(/format version 2.*Upgrade the relay/);
    expect(await takeMessages(aws.sqs, queues.dlq.url, 1)).toHaveLength(1);
  });

  it("redrives a record's letter once the relay reads its item's format version: its messages sent with their ids, the letter deleted", async () => {
    const { message, item } = itemOf('upgraded', 'audit');
    const letter: OutboxDeadLetter = {
      kind: OUTBOX_DEAD_LETTER_KIND,
      reason: {
        error: 'FormatVersionError',
        message: 'dead-lettered by a relay that did not read it',
      },
      image: marshall(item),
      record: { sequenceNumber: '100000000000000000001', pk: String(item.pk) },
      failedAt: new Date().toISOString(),
    };
    const body = JSON.stringify(letter);
    await aws.sqs.send(new SendMessageCommand({ QueueUrl: queues.dlq.url, MessageBody: body }));

    const outcomes = await redriveOutbox({
      deadLetter: { queueUrl: queues.dlq.url },
      sender: new AwsOutboxSender({ sqsClient: aws.sqs }),
    });

    expect(outcomes).toEqual([
      expect.objectContaining({ kind: 'record', status: 'redriven', outboxIds: [message.id] }),
    ]);
    const [sent] = await takeMessages(aws.sqs, queues.audit.url, 1);
    expect(sent?.Body).toBe(message.body);
    expect(sent?.MessageAttributes?.[OutboxMessageIdField.Attribute]?.StringValue).toBe(message.id);
    expect(await takeMessages(aws.sqs, queues.dlq.url, 1, 2_000)).toEqual([]);
  });
});
