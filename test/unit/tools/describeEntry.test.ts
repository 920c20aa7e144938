import { describe, expect, it } from 'vitest';
import { InboxStatus } from '../../../src/constants/index.js';
import type { InboxEntry } from '../../../src/types.js';
import { describeEntry } from '../../../tools/local/describeEntry.js';

const NOW = Date.UTC(2026, 10, 24, 10, 0, 0);
const base: InboxEntry = {
  pk: 'notifier#evt-1',
  consumer: 'notifier',
  key: 'evt-1',
  messageId: 'm-2',
  status: InboxStatus.InProgress,
  payloadHash: 'ab12',
  expiresAt: NOW / 1000 + 86_400,
  formatVersion: 1,
  attempts: 2,
  leaseUntilMillis: NOW + 30_000,
  lastError: { name: 'TimeoutError', at: '2026-11-24T09:59:00.000Z' },
  steps: { email: { at: '2026-11-24T09:58:00.000Z' } },
};

describe('describeEntry', () => {
  it('shows status, attempts, last error, finished steps and the lease of a message in progress', () => {
    const text = describeEntry(base, NOW);

    expect(text.split('\n')[0]).toBe('notifier / evt-1: IN_PROGRESS');
    expect(text).toMatch(/attempts\s+2/);
    expect(text).toMatch(/last error\s+TimeoutError at 2026-11-24T09:59:00.000Z/);
    expect(text).toMatch(/steps\s+email \(2026-11-24T09:58:00.000Z\)/);
    expect(text).toMatch(/lease\s+held until 2026-11-24T10:00:30.000Z/);
  });

  it('says when a lease has lapsed, and shows no lease once the entry is completed', () => {
    expect(describeEntry(base, NOW + 60_000)).toMatch(/lease\s+lapsed at/);
    const completed = {
      ...base,
      status: InboxStatus.Completed,
      processedAt: '2026-11-24T10:01:00.000Z',
    };
    expect(describeEntry(completed, NOW)).not.toMatch(/lease/);
    expect(describeEntry(completed, NOW)).toMatch(/committed\s+2026-11-24T10:01:00.000Z/);
  });

  it('shows the entry of a handler without steps with no attempts or steps lines', () => {
    const { attempts: _a, steps: _s, lastError: _l, leaseUntilMillis: _u, ...plain } = base;
    const text = describeEntry({ ...plain, status: InboxStatus.Completed }, NOW);
    expect(text).not.toMatch(/attempts|steps|last error/);
  });
});
