import { validationException } from './dynamoExceptions.js';

const NUMBER_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
const MAX_DIGITS = 38;
/** Already in normal form: the common case, returned as is. */
const PLAIN_INTEGER = /^(?:0|-?[1-9]\d{0,37})$/;
// DynamoDB's range: 1E-130 to 9.9999999999999999999999999999999999999E+125 in magnitude.
const MAX_LEADING_POWER = 125;
const MIN_LEADING_POWER = -130;

/** A decimal as sign, significant digits (no leading or trailing zeros) and power of ten. */
interface Decimal {
  readonly negative: boolean;
  /** '' for zero. */
  readonly digits: string;
  /** The value is `digits × 10^exponent`. */
  readonly exponent: number;
}

function parseDecimal(text: string): Decimal | undefined {
  const match = NUMBER_TEXT.exec(text);
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', power = '0'] = match;
  if (whole === '' && fraction === '') return undefined;
  return trimmed(sign === '-', `${whole}${fraction}`, Number(power) - fraction.length);
}

function trimmed(negative: boolean, rawDigits: string, exponent: number): Decimal {
  const digits = rawDigits.replace(/^0+/, '');
  const kept = digits.replace(/0+$/, '');
  if (kept === '') return { negative: false, digits: '', exponent: 0 };
  return { negative, digits: kept, exponent: exponent + digits.length - kept.length };
}

/** The digits in plain notation, as DynamoDB returns numbers. */
function format({ negative, digits, exponent }: Decimal): string {
  if (digits === '') return '0';
  const sign = negative ? '-' : '';
  if (exponent >= 0) return `${sign}${digits}${'0'.repeat(exponent)}`;
  const point = digits.length + exponent;
  if (point > 0) return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  return `${sign}0.${'0'.repeat(-point)}${digits}`;
}

function checkStorable(decimal: Decimal): void {
  if (decimal.digits === '') return;
  if (decimal.digits.length > MAX_DIGITS) {
    throw validationException('Attempting to store more than 38 significant digits in a Number');
  }
  const leadingPower = decimal.digits.length + decimal.exponent - 1;
  if (leadingPower > MAX_LEADING_POWER) {
    throw validationException(
      'Number overflow. Attempting to store a number with magnitude larger than supported range',
    );
  }
  if (leadingPower < MIN_LEADING_POWER) {
    throw validationException(
      'Number underflow. Attempting to store a number with magnitude smaller than supported range',
    );
  }
}

/**
 * A number's text as DynamoDB stores and returns it (`'1.50'` → `'1.5'`, `'1e3'` → `'1000'`,
 * `'-0'` → `'0'`), or a `ValidationException` for text that is not a number, has more than 38
 * significant digits or lies outside DynamoDB's range.
 *
 * @example
 * ```ts
 * normalizeNumber('0012.000') // => '12'
 * ```
 */
export function normalizeNumber(text: string): string {
  if (PLAIN_INTEGER.test(text)) return text;
  const decimal = parseDecimal(text);
  if (decimal === undefined) {
    throw validationException(`The parameter cannot be converted to a numeric value: ${text}`);
  }
  checkStorable(decimal);
  return format(decimal);
}

/**
 * Compares two numbers already in {@link normalizeNumber}'s form, exactly (no floating point):
 * negative, zero or positive as `a` is below, equal to or above `b`.
 *
 * @example
 * ```ts
 * compareNumbers('10', '9') // => 1
 * ```
 */
export function compareNumbers(a: string, b: string): number {
  const aNegative = a.startsWith('-');
  const bNegative = b.startsWith('-');
  if (aNegative !== bNegative) return aNegative ? -1 : 1;
  const magnitude = compareMagnitudes(aNegative ? a.slice(1) : a, bNegative ? b.slice(1) : b);
  return aNegative ? -magnitude : magnitude;
}

/** Normalized magnitudes: the longer integer part is larger; then digit by digit. */
function compareMagnitudes(a: string, b: string): number {
  const [aWhole = '', aFraction = ''] = a.split('.');
  const [bWhole = '', bFraction = ''] = b.split('.');
  if (aWhole.length !== bWhole.length) return aWhole.length - bWhole.length;
  if (aWhole !== bWhole) return aWhole < bWhole ? -1 : 1;
  // No trailing zeros: the shorter fraction is the smaller one when it is a prefix.
  if (aFraction === bFraction) return 0;
  return aFraction < bFraction ? -1 : 1;
}

/**
 * The exact sum of two normalized numbers (`b` negated when `subtract`), normalized; a
 * `ValidationException` when the result needs more than 38 digits or leaves the range.
 *
 * @example
 * ```ts
 * addNumbers('0.1', '0.2') // => '0.3'
 * ```
 */
export function addNumbers(a: string, b: string, subtract = false): string {
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  if (x === undefined || y === undefined) throw new TypeError(`not numbers: ${a}, ${b}`);
  const exponent = Math.min(x.exponent, y.exponent);
  const scaled = (d: Decimal, negate: boolean) => {
    const magnitude = BigInt(d.digits || '0') * 10n ** BigInt(d.exponent - exponent);
    return d.negative !== negate ? -magnitude : magnitude;
  };
  const sum = scaled(x, false) + scaled(y, subtract);
  const negative = sum < 0n;
  const result = trimmed(negative, (negative ? -sum : sum).toString(), exponent);
  checkStorable(result);
  return format(result);
}

/**
 * The significant digits of a normalized number: what DynamoDB's item size counts.
 *
 * @example
 * ```ts
 * significantDigits('-0.00120') // => 2
 * ```
 */
export function significantDigits(normalized: string): number {
  const decimal = parseDecimal(normalized);
  return Math.max(decimal?.digits.length ?? 1, 1);
}
