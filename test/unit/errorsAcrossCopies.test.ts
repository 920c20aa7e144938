import { describe, expect, it, vi } from 'vitest';
import * as errors from '../../src/errors.js';

/**
 * A second copy of the library's errors, every module of them evaluated again, as an ES module
 * and a CommonJS build in one program give.
 */
async function secondCopy(): Promise<typeof errors> {
  vi.resetModules();
  return (await import('../../src/errors.js')) as typeof errors;
}

describe('errors from another copy of the library', () => {
  it('are a different class, yet instanceof the same-named classes of this copy', async () => {
    const copy = await secondCopy();
    const thrown = new copy.MessageParseError('m-1', {
      parser: 'json',
      error: new SyntaxError('bad'),
      bodyLength: 3,
    });

    expect(copy.MessageParseError).not.toBe(errors.MessageParseError);
    expect(thrown).toBeInstanceOf(errors.MessageParseError);
    expect(thrown).toBeInstanceOf(errors.PermanentError);
    expect(thrown).toBeInstanceOf(errors.InboxError);
    expect(thrown).not.toBeInstanceOf(errors.TransientStoreError);
    expect(thrown).not.toBeInstanceOf(errors.SchemaValidationError);
  });

  it('keep a user subclass permanent for the other copy', async () => {
    const copy = await secondCopy();
    class UnknownAccountError extends copy.PermanentError {}

    expect(new UnknownAccountError('no such account')).toBeInstanceOf(errors.PermanentError);
    expect(new UnknownAccountError('no such account').name).toBe('UnknownAccountError');
  });

  it('leave other errors alone', () => {
    expect(new Error('x')).not.toBeInstanceOf(errors.InboxError);
    expect({ name: 'PermanentError' }).not.toBeInstanceOf(errors.PermanentError);
    expect(null).not.toBeInstanceOf(errors.InboxError);
  });
});
