import { describe, expect, it } from 'vitest';
import { errorParts } from '../../../src/cli/CliError.js';

describe('errorParts, a thrown value as one line', () => {
  it("gives an Error's name and the first line of its message, without the rest", () => {
    const error = Object.assign(new Error('not authorized\n  at stack frame'), {
      name: 'AccessDeniedException',
    });
    expect(errorParts(error)).toEqual({ name: 'AccessDeniedException', message: 'not authorized' });
  });

  it('gives a thrown value that is no Error by its type and its text', () => {
    expect(errorParts('socket hang up')).toEqual({ name: 'string', message: 'socket hang up' });
  });

  it('gives an empty message for an Error without one', () => {
    expect(errorParts(new RangeError())).toEqual({ name: 'RangeError', message: '' });
  });
});
