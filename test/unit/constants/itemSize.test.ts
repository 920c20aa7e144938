import { describe, expect, it } from 'vitest';
import { estimateItemBytes, estimateValueBytes } from '../../../src/constants/itemSize.js';

describe('item size estimate (DynamoDB item-size rules)', () => {
  it.each([
    ['an ASCII string', 'abc', 3],
    ['a multi-byte string', 'é€', 5],
    ['a small number', 7, 2],
    ['a 38-digit number', 12345678901234567890123456789012345678n, 20],
    ['a boolean', true, 1],
    ['null', null, 1],
    ['binary', new Uint8Array(10), 10],
    ['a list', ['a', 'bb'], 3 + (1 + 1) + (1 + 2)],
    ['a map', { a: 'xy' }, 3 + 1 + 1 + 2],
    ['a string set', new Set(['ab', 'c']), 3],
  ])('counts %s', (_case, value, bytes) => {
    expect(estimateValueBytes(value)).toBe(bytes);
  });

  it('adds attribute names to their values', () => {
    expect(estimateItemBytes({ pk: 'order-1', qty: 3 })).toBe(2 + 7 + 3 + 2);
  });
});
