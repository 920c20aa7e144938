import { describe, expect, it } from 'vitest';
import { bindsOtherPayload, type InboxEntry } from '../../../src/core/inboxEntry.js';

const NOW_MILLIS = Date.parse('2026-11-27T12:00:00Z');
const LIVE_UNTIL = NOW_MILLIS / 1000 + 3_600;
const thisMessage = { payloadHash: 'this-payload', bodyHash: 'this-body' };
const journal = { debit: { at: '2026-11-27T11:59:00Z' } };

function entry(overrides: Partial<InboxEntry>): InboxEntry {
  return {
    pk: 'ledger#k',
    consumer: 'ledger',
    key: 'k',
    messageId: 'm-0',
    status: 'COMPLETED',
    payloadHash: 'other-payload',
    expiresAt: LIVE_UNTIL,
    formatVersion: 2,
    ...overrides,
  };
}

describe("bindsOtherPayload, another payload's live entry that refuses this message", () => {
  it("is true of another payload's commit, and of another payload's unfinished entry with a journal", () => {
    expect(bindsOtherPayload(entry({}), thisMessage, NOW_MILLIS)).toBe(true);
    const released = entry({ status: 'FAILED', steps: journal });
    expect(bindsOtherPayload(released, thisMessage, NOW_MILLIS)).toBe(true);
    const leased = entry({ status: 'IN_PROGRESS', steps: {}, leaseUntilMillis: NOW_MILLIS - 1 });
    expect(bindsOtherPayload(leased, thisMessage, NOW_MILLIS)).toBe(true);
  });

  it("is false of a step-less attempt's failure record: nothing of that message happened", () => {
    expect(bindsOtherPayload(entry({ status: 'FAILED' }), thisMessage, NOW_MILLIS)).toBe(false);
  });

  it("is false of an entry holding this message's payload hash, or its whole body's", () => {
    const samePayload = entry({ payloadHash: 'this-payload', steps: journal });
    expect(bindsOtherPayload(samePayload, thisMessage, NOW_MILLIS)).toBe(false);
    expect(bindsOtherPayload(entry({ payloadHash: 'this-body' }), thisMessage, NOW_MILLIS)).toBe(
      false,
    );
  });

  it('is false of an entry past its TTL, though still stored, and true up to its last second', () => {
    const expiresAt = Math.floor(NOW_MILLIS / 1000);
    expect(bindsOtherPayload(entry({ expiresAt: expiresAt - 1 }), thisMessage, NOW_MILLIS)).toBe(
      false,
    );
    expect(bindsOtherPayload(entry({ expiresAt }), thisMessage, NOW_MILLIS + 999)).toBe(true);
  });
});
