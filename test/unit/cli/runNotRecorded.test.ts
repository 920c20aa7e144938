import { describe, expect, it } from 'vitest';
import { RunNotRecordedError } from '../../../src/cli/redriveAudit.js';

/** An error as the SDK throws it for an AWS answer: named, and carrying `$metadata`. */
function awsAnswer(name: string, message: string): Error {
  return Object.assign(new Error(message), { name, $metadata: { httpStatusCode: 400 } });
}

describe('RunNotRecordedError, a redrive that could not write its start record', () => {
  it('tells a caller refused PutItem to get it on the inbox table, and exits 3', () => {
    const error = new RunNotRecordedError(
      'ledger-inbox',
      awsAnswer('AccessDeniedException', 'not authorized to perform: dynamodb:PutItem\nmore'),
    );
    expect(error.exitCode).toBe(3);
    expect(error.message).toBe(
      'the redrive did not start: its audit record could not be written to ledger-inbox (AccessDeniedException: not authorized to perform: dynamodb:PutItem); nothing was sent or deleted. To run it, give the caller dynamodb:PutItem on ledger-inbox (its #ops# items), then run it again.',
    );
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('exits 1 when the write failed with no answer of AWS behind it', () => {
    const error = new RunNotRecordedError('ledger-inbox', new TypeError('bad item'));
    expect(error.exitCode).toBe(1);
    expect(error.message).toContain('(TypeError: bad item); nothing was sent or deleted');
    expect(error.message).toContain('fix what DynamoDB answered');
  });
});
