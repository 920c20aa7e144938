import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DeadLetterAttribute, inboxPk } from '../../../src/constants/index.js';
import { hashPayload } from '../../../src/core/inboxEntry.js';
import { sendLibraryDeadLetter } from '../../support/deadLetterScene.js';
import {
  ledgerProcessor,
  type PaymentCaptured,
  payment,
  useLedger,
} from '../../support/ledgerFixture.js';
import { ledgerRedrive } from '../../support/ledgerRedrive.js';
import { messageLines } from '../../support/messageLines.js';
import { sqsInbox, standardAwsEnvironment } from '../../support/operatorCli.js';
import { takeMessages } from '../../support/receiveMessages.js';
import { sqsEvent, sqsRecord } from '../../support/sqsRecords.js';

const { aws, ledger } = useLedger();

/** What a group's head is, in the inbox, before the run. */
type Head = 'never' | 'applied' | 'conflict' | 'leased';

/** A group of dead letters: its id, and its events in the order they were dead-lettered. */
interface Group {
  readonly groupId: string;
  readonly head: Head;
  readonly events: readonly PaymentCaptured[];
}

function group(head: Head, size: number): Group {
  const events = Array.from({ length: size }, () =>
    payment({ accountId: `acc-${randomUUID()}`, amountCents: 100 }),
  );
  return { groupId: `group-${head}-${randomUUID()}`, head, events };
}

/** Puts each group's head in the inbox as its name says: committed, another payload, leased. */
async function prepareHead({ head, events }: Group): Promise<void> {
  const [first] = events;
  if (first === undefined || head === 'never') return;
  const processor = ledgerProcessor(ledger.applyPayment, {
    store: ledger.store,
    consumer: 'ledger',
  });
  if (head === 'applied') await processor.processRecords(sqsEvent(sqsRecord(first)));
  if (head === 'conflict') {
    await processor.processRecords(sqsEvent(sqsRecord({ ...first, amountCents: 999 })));
  }
  if (head === 'leased') {
    const now = Date.now();
    const payloadHash = hashPayload(JSON.stringify(first));
    await ledger.store.claim({
      entry: {
        pk: inboxPk('ledger', first.eventId),
        consumer: 'ledger',
        key: first.eventId,
        messageId: 'another-attempt',
        payloadHash,
        expiresAt: Math.floor(now / 1000) + 86_400,
      },
      payloadHashes: [payloadHash],
      owner: 'another-attempt',
      nowMillis: now,
      leaseUntilMillis: now + 600_000,
    });
  }
}

/**
 * An applied redrive with `flags` besides, its lines naming groups (`--show-key`): how it ended,
 * and each group's messages as it saw them (DLQ message id, decision, action), in its order.
 */
async function redriveApplied(dlq: { url: string }, flags: readonly string[] = []) {
  const result = await sqsInbox(
    [...ledgerRedrive(ledger, dlq), ...flags, '--apply', '--jsonl', '--show-key'],
    standardAwsEnvironment(aws),
  );
  const lines = messageLines(result.stdout);
  const seen = (g: Group) =>
    lines
      .filter((line) => line.groupId === g.groupId)
      .map((line) => [line.dlqMessageId, line.decision, line.action]);
  return { result, seen };
}

describe('sqs-inbox dlq redrive on FIFO queues', () => {
  it('sends each group back in DLQ order under its own group id, and a kept head holds back the rest of its group', async () => {
    const dlq = await aws.createQueue(`${aws.uniqueName('fifo-dlq')}.fifo`);
    const source = await aws.createQueue(`${aws.uniqueName('fifo-source')}.fifo`);
    const groups = {
      ordered: group('never', 3),
      applied: group('applied', 2),
      conflict: group('conflict', 3),
      leased: group('leased', 2),
    };
    for (const g of Object.values(groups)) await prepareHead(g);
    // Dead-lettered in turns across the groups, so the DLQ's order interleaves them.
    const dlqIds = new Map<string, string[]>();
    for (let turn = 0; turn < 3; turn++) {
      for (const g of Object.values(groups)) {
        const event = g.events[turn];
        if (event === undefined) continue;
        const id = await sendLibraryDeadLetter(aws, dlq, {
          body: JSON.stringify(event),
          reason: 'TransientStoreError',
          consumer: 'ledger',
          source,
          key: event.eventId,
          groupId: g.groupId,
        });
        dlqIds.set(g.groupId, [...(dlqIds.get(g.groupId) ?? []), id]);
      }
    }
    const ids = (g: Group) => dlqIds.get(g.groupId) ?? [];

    const { result, seen } = await redriveApplied(dlq);

    expect(result.code, result.stderr).toBe(1);
    const [o1, o2, o3] = ids(groups.ordered);
    expect(seen(groups.ordered)).toEqual([
      [o1, 'retry', 'sent'],
      [o2, 'retry', 'sent'],
      [o3, 'retry', 'sent'],
    ]);
    const [a1, a2] = ids(groups.applied);
    expect(seen(groups.applied)).toEqual([
      [a1, 'already-applied', 'deleted'],
      [a2, 'retry', 'sent'],
    ]);
    const [c1, c2, c3] = ids(groups.conflict);
    expect(seen(groups.conflict)).toEqual([
      [c1, 'conflict', 'kept'],
      [c2, 'behind-kept', 'kept'],
      [c3, 'behind-kept', 'kept'],
    ]);
    const [l1, l2] = ids(groups.leased);
    expect(seen(groups.leased)).toEqual([
      [l1, 'in-flight', 'kept'],
      [l2, 'behind-kept', 'kept'],
    ]);

    // Without --show-key, a line names no group (often a customer's id), as it names no key.
    const dryRun = await sqsInbox(
      [...ledgerRedrive(ledger, dlq), '--jsonl'],
      standardAwsEnvironment(aws),
    );
    expect(dryRun.stdout).toContain(c1);
    for (const g of [groups.conflict, groups.leased])
      expect(dryRun.stdout).not.toContain(g.groupId);

    const copies = await takeMessages(aws.sqs, source.url, 4);
    const arrived = (g: Group) =>
      copies
        .filter((copy) => copy.Attributes?.MessageGroupId === g.groupId)
        .map((copy) => copy.MessageAttributes?.[DeadLetterAttribute.RedriveOf]?.StringValue);
    expect(arrived(groups.ordered)).toEqual([o1, o2, o3]);
    expect(arrived(groups.applied)).toEqual([a2]);
    expect(copies).toHaveLength(4);
    // The kept groups are whole in the DLQ, in their order: the head first.
    const left = await takeMessages(aws.sqs, dlq.url, 5);
    const leftOf = (g: Group) =>
      left.filter((m) => m.Attributes?.MessageGroupId === g.groupId).map((m) => m.MessageId);
    expect(leftOf(groups.conflict)).toEqual([c1, c2, c3]);
    expect(leftOf(groups.leased)).toEqual([l1, l2]);
    expect(left).toHaveLength(5);
  }, 120_000);

  it('a message outside the --reason selection holds back the later messages of its group', async () => {
    const dlq = await aws.createQueue(`${aws.uniqueName('fifo-dlq')}.fifo`);
    const source = await aws.createQueue(`${aws.uniqueName('fifo-source')}.fifo`);
    const held = group('never', 3);
    const selectedGroup = group('never', 2);
    // The held group's head failed for another reason than the run selects; all else matches.
    const deadLetter = (g: Group, event: PaymentCaptured, reason: string) =>
      sendLibraryDeadLetter(aws, dlq, {
        body: JSON.stringify(event),
        reason,
        consumer: 'ledger',
        source,
        key: event.eventId,
        groupId: g.groupId,
      });
    const [h1, h2, h3] = held.events;
    const [s1, s2] = selectedGroup.events;
    if (!h1 || !h2 || !h3 || !s1 || !s2) throw new Error('the groups are too small');
    const heldIds = [
      await deadLetter(held, h1, 'DestinationUnavailableError'),
      await deadLetter(held, h2, 'TransientStoreError'),
      await deadLetter(held, h3, 'TransientStoreError'),
    ];
    const selectedIds = [
      await deadLetter(selectedGroup, s1, 'TransientStoreError'),
      await deadLetter(selectedGroup, s2, 'TransientStoreError'),
    ];

    const { result, seen } = await redriveApplied(dlq, ['--reason', 'TransientStoreError']);

    expect(result.code, result.stderr).toBe(1);
    expect(seen(held)).toEqual([
      [heldIds[0], 'not-selected', 'kept'],
      [heldIds[1], 'behind-kept', 'kept'],
      [heldIds[2], 'behind-kept', 'kept'],
    ]);
    expect(seen(selectedGroup)).toEqual([
      [selectedIds[0], 'retry', 'sent'],
      [selectedIds[1], 'retry', 'sent'],
    ]);
    const copies = await takeMessages(aws.sqs, source.url, 2);
    expect(copies.map((copy) => copy.Attributes?.MessageGroupId)).toEqual([
      selectedGroup.groupId,
      selectedGroup.groupId,
    ]);
    const left = await takeMessages(aws.sqs, dlq.url, 3);
    expect(left.map((m) => m.MessageId)).toEqual(heldIds);
  }, 120_000);
});
