import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { compareNumbers } from './normalizeNumber.js';

/**
 * An item in DynamoDB's wire form.
 *
 * @example
 * ```ts
 * const item: Item = { pk: { S: 'ledger#evt-1' }, expiresAt: { N: '1700000000' } };
 * ```
 */
export type Item = Record<string, AttributeValue>;

/**
 * DynamoDB's attribute type names, as `attribute_type` takes them.
 *
 * @example
 * ```ts
 * if (typeOf(value) === AttributeType.NS) console.log('a number set');
 * ```
 */
export const AttributeType = {
  S: 'S',
  N: 'N',
  B: 'B',
  BOOL: 'BOOL',
  NULL: 'NULL',
  L: 'L',
  M: 'M',
  SS: 'SS',
  NS: 'NS',
  BS: 'BS',
} as const;
/**
 * One of {@link AttributeType}.
 *
 * @example
 * ```ts
 * if (typeOf(value) === AttributeType.NS) console.log('a number set');
 * ```
 */
export type AttributeType = (typeof AttributeType)[keyof typeof AttributeType];

const TYPES = Object.values(AttributeType);

/**
 * The content of a wire value under one type key (`undefined` when it is of another type).
 *
 * @example
 * ```ts
 * contentOf({ SS: ['a'] }, 'SS') // => ['a']
 * ```
 */
export function contentOf(value: AttributeValue, type: AttributeType): unknown {
  return (value as unknown as Record<string, unknown>)[type];
}

/**
 * A wire value of a type computed at run time.
 *
 * @example
 * ```ts
 * wireValue('NS', ['1']) // => { NS: ['1'] }
 * ```
 */
export function wireValue(type: AttributeType, content: unknown): AttributeValue {
  return { [type]: content } as unknown as AttributeValue;
}

/**
 * The type of a wire value: the one key of DynamoDB's `AttributeValue` that is set.
 *
 * @example
 * ```ts
 * typeOf({ NS: ['1'] }) // => 'NS'
 * ```
 */
export function typeOf(value: AttributeValue): AttributeType {
  for (const type of TYPES) if (contentOf(value, type) !== undefined) return type;
  throw new TypeError(`not an AttributeValue: ${JSON.stringify(value)}`);
}

/**
 * Orders two strings by code point, which is how DynamoDB orders them (by UTF-8 bytes); plain
 * `<` orders UTF-16 code units, which differs above U+FFFF.
 *
 * @example
 * ```ts
 * compareStrings('\uFFFF', '😀') // => -1 (plain '<' says the opposite)
 * ```
 */
export function compareStrings(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let at = 0; at < length; at++) {
    const x = a.charCodeAt(at);
    const y = b.charCodeAt(at);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** Surrogates (0xD800–0xDFFF) start code points above every BMP unit from 0xE000. */
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  return unit >= 0xe000 ? unit - 0x800 : unit;
}

/**
 * Orders two byte arrays as unsigned bytes, shorter first when one is a prefix.
 *
 * @example
 * ```ts
 * compareBytes(new Uint8Array([1, 255]), new Uint8Array([2])) // => -1
 * ```
 */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const length = Math.min(a.length, b.length);
  for (let at = 0; at < length; at++) {
    const x = a[at] ?? 0;
    const y = b[at] ?? 0;
    if (x !== y) return x - y;
  }
  return a.length - b.length;
}

/**
 * Orders two values of one of the ordered types (N, S, B); `undefined` when they are of
 * different types or of another type, which makes every ordered comparison false.
 *
 * @example
 * ```ts
 * compareOrdered({ N: '10' }, { N: '9' }) // => 1
 * ```
 */
export function compareOrdered(a: AttributeValue, b: AttributeValue): number | undefined {
  if (a.N !== undefined && b.N !== undefined) return compareNumbers(a.N, b.N);
  if (a.S !== undefined && b.S !== undefined) return compareStrings(a.S, b.S);
  if (a.B !== undefined && b.B !== undefined) return compareBytes(a.B, b.B);
  return undefined;
}

/**
 * Whether two wire values are equal as DynamoDB compares them: same type and content, sets
 * in any order, numbers by value (values are stored normalized, so by text).
 *
 * @example
 * ```ts
 * valuesEqual({ SS: ['a', 'b'] }, { SS: ['b', 'a'] }) // => true
 * ```
 */
export function valuesEqual(a: AttributeValue, b: AttributeValue): boolean {
  const type = typeOf(a);
  if (type !== typeOf(b)) return false;
  switch (type) {
    case 'B':
      return compareBytes(a.B as Uint8Array, b.B as Uint8Array) === 0;
    case 'L':
      return listsEqual(a.L as AttributeValue[], b.L as AttributeValue[]);
    case 'M':
      return itemsEqual(a.M as Item, b.M as Item);
    case 'SS':
    case 'NS':
      return setsEqual(a[type] as string[], b[type] as string[]);
    case 'BS':
      return byteSetsEqual(a.BS as Uint8Array[], b.BS as Uint8Array[]);
    default:
      return contentOf(a, type) === contentOf(b, type);
  }
}

function listsEqual(a: readonly AttributeValue[], b: readonly AttributeValue[]): boolean {
  return (
    a.length === b.length &&
    a.every((value, at) => {
      const other = b[at];
      return other !== undefined && valuesEqual(value, other);
    })
  );
}

function setsEqual(a: readonly string[], b: readonly string[]): boolean {
  const members = new Set(a);
  return a.length === b.length && b.every((member) => members.has(member));
}

function byteSetsEqual(a: readonly Uint8Array[], b: readonly Uint8Array[]): boolean {
  return a.length === b.length && a.every((x) => b.some((y) => compareBytes(x, y) === 0));
}

/**
 * Whether two items (or maps, or absent items) hold the same attributes with equal values.
 *
 * @example
 * ```ts
 * itemsEqual({ n: { N: '1' } }, { n: { N: '1' } }) // => true
 * ```
 */
export function itemsEqual(a: Item | undefined, b: Item | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const names = Object.keys(a);
  if (names.length !== Object.keys(b).length) return false;
  return names.every((name) => {
    const other = b[name];
    return other !== undefined && valuesEqual(a[name] as AttributeValue, other);
  });
}
