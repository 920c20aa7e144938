import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { LEDGER_QUEUE_ARN, makeLedgerWorkload } from '../../../bench/ledgerWorkload.js';

const SHAPE = { records: 1000, copyShare: 0.1, accounts: 50, batchSize: 10 };
const bodyOf = (record: SQSRecord) => JSON.parse(record.body) as Record<string, unknown>;

describe('the bench:kit workload', () => {
  it('delivers the records asked for in full batches, a tenth of them copies of 900 payments', () => {
    const { batches, distinct } = makeLedgerWorkload(SHAPE);
    expect(batches.flat()).toHaveLength(1000);
    expect(batches.every((batch) => batch.length === 10)).toBe(true);
    expect(distinct).toHaveLength(900);
    expect(new Set(distinct.map((payment) => payment.eventId)).size).toBe(900);
  });

  it("delivers each record in its account's FIFO group, every copy after its payment's first delivery", () => {
    const { batches, distinct } = makeLedgerWorkload(SHAPE);
    const seen = new Set<unknown>();
    let copies = 0;
    for (const record of batches.flat()) {
      const body = bodyOf(record);
      expect(record.eventSourceARN).toBe(LEDGER_QUEUE_ARN);
      expect(record.attributes.MessageGroupId).toBe(body.accountId);
      if (seen.has(body.eventId)) copies++;
      seen.add(body.eventId);
    }
    expect(copies).toBe(100);
    expect(seen).toEqual(new Set(distinct.map((payment) => payment.eventId)));
  });

  it('redelivers half the copies as whole batches right after themselves, one receive more', () => {
    const { batches } = makeLedgerWorkload(SHAPE);
    const ids = (batch: readonly SQSRecord[]) => batch.map((record) => record.messageId);
    const again = batches.filter(
      (batch, at) => at > 0 && `${ids(batch)}` === `${ids(batches[at - 1] ?? [])}`,
    );
    expect(again).toHaveLength(5);
    for (const batch of again)
      expect(batch.map((record) => record.attributes.ApproximateReceiveCount)).toEqual(
        Array(10).fill('2'),
      );
  });

  it('resends the other half as new messages, each a later sequence number of its group', () => {
    const records = makeLedgerWorkload(SHAPE).batches.flat();
    expect(new Set(records.map((record) => record.messageId)).size).toBe(950);
    const lastOfGroup = new Map<string, bigint>();
    const firstReceives = records.filter(
      (record) => record.attributes.ApproximateReceiveCount === '1',
    );
    expect(firstReceives).toHaveLength(950);
    for (const record of firstReceives) {
      const group = String(record.attributes.MessageGroupId);
      const sequence = BigInt(String(record.attributes.SequenceNumber));
      expect(sequence).toBeGreaterThan(lastOfGroup.get(group) ?? -1n);
      lastOfGroup.set(group, sequence);
    }
  });
});
