/**
 * The API report of `sqs-inbox/testing` (etc/sqs-inbox-testing.api.md, which `npm run api` keeps
 * equal to the entry's declarations): a test names every type the entry's declarations name, and
 * uses as values those that are values in the library too.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InboxStatus } from '../../../src/constants/index.js';
import { InboxError, MessageSource, RecordStatus, TimerPurpose } from '../../../src/index.js';
import * as testing from '../../../src/testing/index.js';

describe('the sqs-inbox/testing API report', () => {
  it('has no type its declarations name that the entry does not export', () => {
    const report = readFileSync('etc/sqs-inbox-testing.api.md', 'utf8');
    const forgotten = [...report.matchAll(/ae-forgotten-export\) The symbol "(\w+)"/g)];
    expect(forgotten.map(([, name]) => name)).toEqual([]);
  });

  it('exports InboxStatus, RecordStatus, MessageSource, TimerPurpose and InboxError as the library’s own values, not as types only', () => {
    const pairs = [
      [testing.InboxStatus, InboxStatus],
      [testing.RecordStatus, RecordStatus],
      [testing.MessageSource, MessageSource],
      [testing.TimerPurpose, TimerPurpose],
      [testing.InboxError, InboxError],
    ] as const;
    for (const [exported, own] of pairs) expect(exported).toBe(own);
    expect(new InboxError('x')).toBeInstanceOf(testing.InboxError);
  });
});
