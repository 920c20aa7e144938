import { describe, expect, it } from 'vitest';
import {
  addNumbers,
  compareNumbers,
  normalizeNumber,
  significantDigits,
} from '../../../src/testing/dynamo/normalizeNumber.js';

describe('normalizeNumber', () => {
  it.each([
    ['1.50', '1.5'],
    ['-0', '0'],
    ['-0.000', '0'],
    ['+7', '7'],
    ['1e3', '1000'],
    ['1.5E-3', '0.0015'],
    ['0012.000', '12'],
    ['.5', '0.5'],
    ['5.', '5'],
    ['-0.0010', '-0.001'],
    ['12345678901234567890123456789012345678', '12345678901234567890123456789012345678'],
    ['1e-130', `0.${'0'.repeat(129)}1`],
  ])('writes %s as DynamoDB returns it: %s', (text, normalized) => {
    expect(normalizeNumber(text)).toBe(normalized);
  });

  it.each([
    ['abc', /^The parameter cannot be converted to a numeric value: abc$/],
    ['', /cannot be converted/],
    ['1.2.3', /cannot be converted/],
    [' 1', /cannot be converted/],
    ['1'.repeat(39), /^Attempting to store more than 38 significant digits in a Number$/],
    ['1e126', /^Number overflow/],
    ['1e-131', /^Number underflow/],
  ])('refuses %s with a ValidationException', (text, message) => {
    expect(() => normalizeNumber(text)).toThrow(message);
    expect(() => normalizeNumber(text)).toThrow(
      expect.objectContaining({ name: 'ValidationException' }),
    );
  });

  it('keeps trailing zeros of an integer out of its 38 digits', () => {
    expect(normalizeNumber(`1${'0'.repeat(100)}`)).toHaveLength(101);
  });
});

describe('compareNumbers', () => {
  it.each([
    ['10', '9', 1],
    ['9', '10', -1],
    ['-10', '-9', -1],
    ['-1', '1', -1],
    ['0', '-0.5', 1],
    ['0.5', '0.49', 1],
    ['0.5', '0.51', -1],
    ['1.5', '1.5', 0],
    ['12345678901234567890123456789012345678', '12345678901234567890123456789012345677', 1],
  ])('orders %s against %s exactly: %i', (a, b, sign) => {
    expect(Math.sign(compareNumbers(a, b))).toBe(sign);
  });
});

describe('addNumbers', () => {
  it.each([
    ['0.1', '0.2', false, '0.3'],
    ['10', '10.5', true, '-0.5'],
    ['-0.1', '0.1', false, '0'],
    [
      '99999999999999999999999999999999999999',
      '1',
      false,
      '100000000000000000000000000000000000000',
    ],
    [normalizeNumber('1e100'), normalizeNumber('1e99'), true, `9${'0'.repeat(99)}`],
  ])('adds %s and %s (subtract: %s) exactly: %s', (a, b, subtract, sum) => {
    expect(addNumbers(a, b, subtract)).toBe(sum);
  });

  it('refuses a sum that needs more than 38 digits', () => {
    expect(() => addNumbers('99999999999999999999999999999999999999', '0.1')).toThrow(
      /more than 38 significant digits/,
    );
  });

  it('counts significant digits without zeros at either end', () => {
    expect([
      significantDigits('0'),
      significantDigits('-0.0012'),
      significantDigits('1200'),
    ]).toEqual([1, 2, 2]);
  });
});
