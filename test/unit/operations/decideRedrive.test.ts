import { describe, expect, it } from 'vitest';
import type { InboxEntry } from '../../../src/core/inboxEntry.js';
import {
  decideRedrive,
  type RedriveFacts,
  STALE_MARGIN_MILLIS,
} from '../../../src/operations/RedriveDecision.js';

const NOW = Date.parse('2026-11-27T12:00:00Z');
const DAY = 86_400;
const hashes = { payloadHash: 'payload', bodyHash: 'body' };

function entry(overrides: Partial<InboxEntry>): InboxEntry {
  return {
    pk: 'ledger#k',
    consumer: 'ledger',
    key: 'k',
    messageId: 'm',
    status: 'COMPLETED',
    payloadHash: 'payload',
    expiresAt: NOW / 1000 + DAY,
    formatVersion: 1,
    ...overrides,
  };
}

function decide(overrides: Partial<RedriveFacts>) {
  return decideRedrive({
    entry: undefined,
    hashes,
    nowMillis: NOW,
    earliestCommitMillis: NOW - 3_600_000,
    ttlSeconds: DAY,
    permanent: false,
    ...overrides,
  });
}

describe('the redrive decision table', () => {
  it('deletes a message committed with its payload (the body hash of an older entry too), live or expired but stored', () => {
    expect(decide({ entry: entry({}) })).toBe('already-applied');
    expect(decide({ entry: entry({ payloadHash: 'body' }) })).toBe('already-applied');
    expect(decide({ entry: entry({ expiresAt: NOW / 1000 - 10 }) })).toBe('already-applied');
  });

  it('keeps a message whose key committed with another payload', () => {
    expect(decide({ entry: entry({ payloadHash: 'other' }) })).toBe('conflict');
  });

  it('keeps a message whose entry another attempt holds, and retries one whose lease lapsed or failed', () => {
    const leased = { status: 'IN_PROGRESS' as const, leaseUntilMillis: NOW + 60_000 };
    expect(decide({ entry: entry(leased) })).toBe('in-flight');
    expect(decide({ entry: entry({ ...leased, leaseUntilMillis: NOW - 1 }) })).toBe('retry');
    expect(decide({ entry: entry({ status: 'FAILED' }) })).toBe('retry');
  });

  it('keeps a message whose key holds another payload’s journal, failed or under a lapsed lease, which its consumer never takes over', () => {
    const steps = { notify: { result: '{}' } } as unknown as InboxEntry['steps'];
    const failed = { status: 'FAILED' as const, payloadHash: 'other', steps };
    expect(decide({ entry: entry(failed) })).toBe('conflict');
    const lapsed = { ...failed, status: 'IN_PROGRESS' as const, leaseUntilMillis: NOW - 1 };
    expect(decide({ entry: entry(lapsed) })).toBe('conflict');
    // Its own payload's journal is resumed; a step-less failure of another payload ties nothing.
    expect(decide({ entry: entry({ ...failed, payloadHash: 'body' }) })).toBe('retry');
    expect(decide({ entry: entry({ status: 'FAILED', payloadHash: 'other' }) })).toBe('retry');
    // Expired, it is written over like an absent entry.
    expect(decide({ entry: entry({ ...failed, expiresAt: NOW / 1000 - 10 }) })).toBe('retry');
  });

  it('retries an absent entry only while every commit the message could have made would still be visible', () => {
    const horizon = NOW - DAY * 1000 + STALE_MARGIN_MILLIS;
    expect(decide({ earliestCommitMillis: horizon + 1 })).toBe('retry');
    expect(decide({ earliestCommitMillis: horizon })).toBe('stale');
    expect(decide({ earliestCommitMillis: horizon, acceptStale: true })).toBe('retry');
    expect(decide({ entry: entry({ status: 'FAILED' }), earliestCommitMillis: horizon })).toBe(
      'stale',
    );
  });

  it('never sends back a message its consumer keys by the SQS message id, but deletes one it applied', () => {
    const byId = { messageIdKey: true };
    expect(decide(byId)).toBe('message-id-key');
    expect(decide({ ...byId, entry: entry({ status: 'FAILED' }), acceptStale: true })).toBe(
      'message-id-key',
    );
    expect(decide({ ...byId, permanent: true, includePermanent: true })).toBe('message-id-key');
    expect(decide({ ...byId, entry: entry({}) })).toBe('already-applied');
    expect(decide({ ...byId, entry: entry({ payloadHash: 'other' }) })).toBe('conflict');
    const leased = { status: 'IN_PROGRESS' as const, leaseUntilMillis: NOW + 60_000 };
    expect(decide({ ...byId, entry: entry(leased) })).toBe('in-flight');
  });

  it('keeps a permanent failure unless the operator includes it, then decides it like any other', () => {
    expect(decide({ permanent: true, entry: entry({}) })).toBe('permanent');
    expect(decide({ permanent: true, includePermanent: true })).toBe('retry');
    expect(decide({ permanent: true, includePermanent: true, entry: entry({}) })).toBe(
      'already-applied',
    );
  });
});
