/**
 * The API report of `sqs-inbox/testing` (etc/sqs-inbox-testing.api.md, which `npm run api` keeps
 * equal to the entry's declarations): a test names every type the entry's declarations name.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('the sqs-inbox/testing API report', () => {
  it('has no type its declarations name that the entry does not export', () => {
    const report = readFileSync('etc/sqs-inbox-testing.api.md', 'utf8');
    const forgotten = [...report.matchAll(/ae-forgotten-export\) The symbol "(\w+)"/g)];
    expect(forgotten.map(([, name]) => name)).toEqual([]);
  });
});
