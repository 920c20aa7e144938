import { describe, expect, it } from 'vitest';
import { entryText, entryView } from '../../../src/cli/describeEntry.js';
import { InboxStatus } from '../../../src/constants/index.js';
import { keyHash } from '../../../src/core/loggedKey.js';
import type { InboxEntry } from '../../../src/types.js';

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
  leaseEpoch: 2,
  lastError: { name: 'TimeoutError', at: '2026-11-24T09:59:00.000Z' },
  steps: { email: { at: '2026-11-24T09:58:00.000Z' } },
};

describe('the entry as sqs-inbox message shows it', () => {
  it('shows status, attempts, last error, finished steps and the lease, by the key’s hash', () => {
    const view = entryView('notifier', 'evt-1', base, NOW, false);
    expect(view).toMatchObject({
      keyHash: keyHash('evt-1'),
      status: 'IN_PROGRESS',
      attempts: 2,
      lastError: base.lastError,
      steps: [{ name: 'email', at: '2026-11-24T09:58:00.000Z' }],
      lease: { until: '2026-11-24T10:00:30.000Z', epoch: 2, state: 'held' },
    });
    expect(JSON.stringify(view)).not.toContain('"evt-1"');
    const text = entryText(view);
    expect(text.split('\n')[0]).toBe(`notifier / keyHash ${keyHash('evt-1')}: IN_PROGRESS`);
    expect(text).toMatch(/last error\s+TimeoutError at 2026-11-24T09:59:00.000Z/);
    expect(text).toMatch(/lease\s+held until .*, epoch 2/);
  });

  it('shows the key only when asked, a lapsed lease, an expired entry, and an absent one', () => {
    expect(entryView('notifier', 'evt-1', base, NOW, true)).toMatchObject({ key: 'evt-1' });
    expect(entryView('notifier', 'evt-1', base, NOW + 60_000, false)).toMatchObject({
      lease: { state: 'lapsed' },
    });
    const expired = entryView(
      'notifier',
      'evt-1',
      { ...base, status: 'COMPLETED' },
      NOW + 2 * 86_400_000,
      false,
    );
    expect(expired).toMatchObject({ status: 'expired', storedStatus: 'COMPLETED' });
    const absent = entryView('notifier', 'evt-1', undefined, NOW, false);
    expect(absent.status).toBe('absent');
    expect(entryText(absent)).toMatch(/no inbox entry/);
  });
});
