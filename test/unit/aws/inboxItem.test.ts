import { describe, expect, it } from 'vitest';
import { toEntry } from '../../../src/aws/inboxItem.js';
import { FormatVersionError, InboxError } from '../../../src/errors.js';

/** A completed entry as 0.1.0 stored it: no formatVersion. */
const previousFormat = {
  pk: 'ledger#evt-1',
  consumer: 'ledger',
  key: 'evt-1',
  messageId: 'm-1',
  status: 'COMPLETED',
  payloadHash: 'ab',
  processedAt: '2026-11-24T10:00:00.000Z',
  expiresAt: 2_000_000_000,
};

function thrownBy(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('toEntry', () => {
  it('reads an entry of the previous format, stored without formatVersion, as version 1', () => {
    expect(toEntry(previousFormat, 'inbox')).toEqual({ ...previousFormat, formatVersion: 1 });
  });

  it('reads a leased entry’s lease (until, fencing counter) and what a commit published', () => {
    const published = [{ id: 'a'.repeat(64), destination: 'https://sqs.example/q', groupId: 'g' }];
    const entry = toEntry(
      {
        ...previousFormat,
        status: 'IN_PROGRESS',
        leaseOwner: 'o-1',
        leaseEpoch: 3,
        leaseUntil: 1_900_000_000_000,
        published,
      },
      'inbox',
    );
    expect(entry).toMatchObject({ leaseEpoch: 3, leaseUntilMillis: 1_900_000_000_000, published });
  });

  it('reads an entry of the format version this release writes', () => {
    expect(toEntry({ ...previousFormat, formatVersion: 1 }, 'inbox').formatVersion).toBe(1);
  });

  it('refuses an entry of a newer format version with FormatVersionError, naming the table but not the key, before reading the rest', () => {
    const error = thrownBy(() => toEntry({ pk: 'ledger#secret-key', formatVersion: 2 }, 'inbox'));

    expect(error).toBeInstanceOf(FormatVersionError);
    expect(error).toMatchObject({ stored: 'inboxEntry', version: 2, newest: 1 });
    expect((error as Error).message).toMatch(/An inbox entry in inbox has format version 2/);
    expect((error as Error).message).toMatch(/Upgrade sqs-inbox/);
    expect((error as Error).message).not.toContain('secret-key');
  });

  it('refuses a formatVersion that is no whole number from 1 as no sqs-inbox entry', () => {
    const error = thrownBy(() => toEntry({ ...previousFormat, formatVersion: '1' }, 'inbox'));

    expect(error).toBeInstanceOf(InboxError);
    expect(error).not.toBeInstanceOf(FormatVersionError);
    expect((error as Error).message).toMatch(/is not an sqs-inbox entry.*formatVersion absent/);
  });
});
