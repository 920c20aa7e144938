import { describe, expect, it } from 'vitest';
import {
  compareBytes,
  compareOrdered,
  compareStrings,
  itemsEqual,
  typeOf,
  valuesEqual,
} from '../../../src/testing/dynamo/compareValues.js';

describe('compareStrings', () => {
  it('orders by code point, where UTF-16 order differs above U+FFFF', () => {
    expect(compareStrings('\uFFFF', '😀')).toBeLessThan(0);
    expect('\uFFFF' < '😀').toBe(false);
  });

  it.each([
    ['a', 'b', -1],
    ['ab', 'a', 1],
    ['', '', 0],
    ['é', 'e', 1],
  ])('orders %s against %s: %i', (a, b, sign) => {
    expect(Math.sign(compareStrings(a, b))).toBe(sign);
  });
});

describe('compareBytes', () => {
  it('orders unsigned bytes, a prefix first', () => {
    expect(compareBytes(new Uint8Array([255]), new Uint8Array([1]))).toBeGreaterThan(0);
    expect(compareBytes(new Uint8Array([1]), new Uint8Array([1, 0]))).toBeLessThan(0);
  });
});

describe('compareOrdered', () => {
  it('has no order between different types or for unordered types', () => {
    expect(compareOrdered({ N: '1' }, { S: '1' })).toBeUndefined();
    expect(compareOrdered({ BOOL: true }, { BOOL: false })).toBeUndefined();
  });
});

describe('valuesEqual', () => {
  it.each([
    [{ SS: ['a', 'b'] }, { SS: ['b', 'a'] }, true],
    [{ NS: ['1'] }, { NS: ['1', '2'] }, false],
    [
      { BS: [new Uint8Array([1]), new Uint8Array([2])] },
      { BS: [new Uint8Array([2]), new Uint8Array([1])] },
      true,
    ],
    [{ L: [{ S: 'a' }, { N: '1' }] }, { L: [{ N: '1' }, { S: 'a' }] }, false],
    [{ M: { a: { NULL: true } } }, { M: { a: { NULL: true } } }, true],
    [{ M: { a: { S: 'x' } } }, { M: { b: { S: 'x' } } }, false],
    [{ B: new Uint8Array([1, 2]) }, { B: new Uint8Array([1, 2]) }, true],
    [{ S: '1' }, { N: '1' }, false],
  ])('compares %j and %j: %s', (a, b, equal) => {
    expect(valuesEqual(a, b)).toBe(equal);
  });

  it('compares absent items as equal only to absent items', () => {
    expect(itemsEqual(undefined, undefined)).toBe(true);
    expect(itemsEqual(undefined, {})).toBe(false);
  });

  it('refuses a value with no type', () => {
    expect(() => typeOf({} as never)).toThrow(TypeError);
  });
});
