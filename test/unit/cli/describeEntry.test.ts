import { describe, expect, it } from 'vitest';
import { operatorClients } from '../../../src/aws/operatorClients.js';
import { entryText, entryView } from '../../../src/cli/describeEntry.js';
import { publishedText, publishedView } from '../../../src/cli/publishedView.js';
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

describe('the text sqs-inbox message prints for a completed step-less entry', () => {
  const committedAt = '2026-11-24T09:59:30.000Z';
  const published = [
    { id: 'a'.repeat(64), destination: 'https://sqs.example/credits.fifo', groupId: 'acc-77' },
    { id: 'b'.repeat(64), destination: 'https://sqs.example/audit' },
  ];
  /** As a step-less commit writes it: the entry replaced whole, so no attempts, steps or lease. */
  const completed: InboxEntry = {
    pk: 'ledger#evt-9',
    consumer: 'ledger',
    key: 'evt-9',
    messageId: 'm-9',
    status: InboxStatus.Completed,
    payloadHash: 'cd34',
    processedAt: committedAt,
    expiresAt: NOW / 1000 + 86_400,
    formatVersion: 1,
    published,
  };

  /** What the command prints for `entry`: its entry's lines, then what its commit published. */
  async function printed(entry: InboxEntry, showKey: boolean): Promise<string[]> {
    const view = entryView('ledger', 'evt-9', entry, NOW, showKey);
    const io = { stdout: () => {}, stderr: () => {}, env: {}, cwd: '.' };
    const target = { consumer: 'ledger', environment: {} };
    const listed = await publishedView(entry, target, operatorClients({}), io, {
      deadLetters: false,
    });
    return (entryText(view) + publishedText(listed)).split('\n');
  }

  it('shows status, message, payload hash, commit time and expiry, then the published outbox ids; no attempts, steps, error or lease line, and no key', async () => {
    const lines = await printed(completed, false);

    expect(lines).toEqual([
      `ledger / keyHash ${keyHash('evt-9')}: COMPLETED`,
      '  message    m-9',
      '  payload    sha256 cd34',
      `  committed  ${committedAt}`,
      '  expires    2026-11-25T10:00:00.000Z',
      '  published (2):',
      `    ${'a'.repeat(64)} → https://sqs.example/credits.fifo`,
      `    ${'b'.repeat(64)} → https://sqs.example/audit`,
    ]);
    // The group of a published message is often a customer's id, as a key is.
    expect(lines.join('\n')).not.toMatch(/evt-9|acc-77/);
  });

  it('shows no lease for a completed entry that still carries one, an empty journal as no finished steps, and the key only when asked', async () => {
    const lines = await printed(
      { ...completed, attempts: 3, leaseUntilMillis: NOW + 30_000, leaseEpoch: 3, steps: {} },
      true,
    );

    expect(lines[0]).toBe('ledger / evt-9: COMPLETED');
    expect(lines).toContain('  attempts   3');
    expect(lines).toContain('  steps      none finished');
    expect(lines.join('\n')).not.toMatch(/lease|epoch/);
  });
});
