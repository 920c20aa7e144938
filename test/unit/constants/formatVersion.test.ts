import { describe, expect, it } from 'vitest';
import { formatVersionOf } from '../../../src/constants/formatVersion.js';

describe('formatVersionOf', () => {
  it('reads an absent version as version 1, what 0.1.0 wrote without one', () => {
    expect(formatVersionOf(undefined)).toBe(1);
  });

  it.each([
    [1, 1],
    [2, 2],
    [{ value: '3' }, 3],
  ])(
    'reads %j as version %i (a wrapped number as a document client with wrapNumbers gives it)',
    (value, version) => {
      expect(formatVersionOf(value)).toBe(version);
    },
  );

  it.each([['1'], [0], [-1], [1.5], [null], [Number.NaN], [{ value: 'x' }]])(
    'finds no version in %j',
    (value) => {
      expect(formatVersionOf(value)).toBeUndefined();
    },
  );
});
