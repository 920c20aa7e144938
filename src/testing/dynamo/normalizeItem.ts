import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { AttributeType, compareBytes, contentOf, type Item, wireValue } from './compareValues.js';
import { validationException } from './dynamoExceptions.js';
import { normalizeNumber } from './normalizeNumber.js';

const INVALID = 'One or more parameter values were invalid';
const EMPTY_SET_MESSAGES = {
  SS: `${INVALID}: An string set  may not be empty`,
  NS: `${INVALID}: An number set  may not be empty`,
  BS: `${INVALID}: Binary sets should not be empty`,
} as const;

/**
 * A frozen copy of a request's wire value in the form DynamoDB stores: numbers normalized,
 * sets checked (not empty, no duplicates once normalized), exactly one type set. Throws the
 * `ValidationException` DynamoDB gives otherwise. Binary values are copied, not frozen
 * (a typed array cannot be).
 *
 * @example
 * ```ts
 * normalizeValue({ NS: ['1.0', '2'] }) // => { NS: ['1', '2'] }
 * ```
 */
export function normalizeValue(value: AttributeValue): AttributeValue {
  const type = singleType(value);
  const content = contentOf(value, type);
  switch (type) {
    case 'N':
      return Object.freeze({ N: normalizeNumber(String(content)) });
    case 'B':
      return Object.freeze({ B: Uint8Array.from(content as Uint8Array) });
    case 'NULL':
      if (content !== true) {
        throw validationException(
          `${INVALID}: Null attribute value types must have the value of true`,
        );
      }
      return Object.freeze({ NULL: true });
    case 'L':
      return Object.freeze({ L: (content as AttributeValue[]).map(normalizeValue) });
    case 'M':
      return Object.freeze({ M: normalizeItem(content as Item) });
    case 'SS':
    case 'NS':
    case 'BS':
      return normalizeSet(type, content as unknown[]);
    default:
      return Object.freeze(wireValue(type, content));
  }
}

/**
 * A frozen copy of a request's item (or key, or expression values) with every value
 * normalized by {@link normalizeValue}.
 *
 * @example
 * ```ts
 * normalizeItem({ pk: { S: 'a' }, n: { N: '1.50' } }) // => { pk: { S: 'a' }, n: { N: '1.5' } }
 * ```
 */
export function normalizeItem(item: Item): Item {
  const normalized: Item = {};
  for (const name in item) {
    const value = item[name];
    if (value !== undefined) normalized[name] = normalizeValue(value);
  }
  return Object.freeze(normalized);
}

const TYPE_NAMES: ReadonlySet<string> = new Set(Object.values(AttributeType));

function singleType(value: AttributeValue): AttributeType {
  // Fast path: what the SDK's marshaller builds, one key of a known type.
  const keys = value !== null && typeof value === 'object' ? Object.keys(value) : [];
  const [only] = keys;
  if (keys.length === 1 && only !== undefined && TYPE_NAMES.has(only)) {
    if (contentOf(value, only as AttributeType) !== undefined) return only as AttributeType;
  }
  const types = Object.values(AttributeType).filter(
    (type) => value !== undefined && value !== null && contentOf(value, type) !== undefined,
  );
  const [type] = types;
  if (types.length > 1 || type === undefined) {
    throw validationException(
      `Supplied AttributeValue ${types.length > 1 ? 'has more than one datatypes set' : 'is empty'}, ` +
        'must contain exactly one of the supported datatypes',
    );
  }
  return type;
}

function normalizeSet(type: 'SS' | 'NS' | 'BS', members: readonly unknown[]): AttributeValue {
  if (members.length === 0) throw validationException(EMPTY_SET_MESSAGES[type]);
  const normalized =
    type === 'BS'
      ? members.map((member) => Uint8Array.from(member as Uint8Array))
      : members.map((member) => (type === 'NS' ? normalizeNumber(String(member)) : String(member)));
  if (hasDuplicates(normalized)) {
    const shown = members.map((member) => String(member)).join(', ');
    throw validationException(`${INVALID}: Input collection [${shown}] contains duplicates`);
  }
  return Object.freeze(wireValue(type, Object.freeze(normalized)));
}

function hasDuplicates(members: ReadonlyArray<string | Uint8Array>): boolean {
  if (members.every((member) => typeof member === 'string')) {
    return new Set(members).size !== members.length;
  }
  const bytes = members as readonly Uint8Array[];
  return bytes.some((x, at) => bytes.some((y, other) => other > at && compareBytes(x, y) === 0));
}

/**
 * Freezes the parts of an item built by copy-on-write that are not frozen yet (binary values
 * excepted: a typed array cannot be frozen), so that stored items and change images are
 * immutable for whoever reads them.
 *
 * @example
 * ```ts
 * const stored = freezeItem({ ...old, n: { N: '2' } });
 * ```
 */
export function freezeItem(item: Item): Item {
  freezeDeep(item);
  return item;
}

function freezeDeep(value: object): void {
  if (Object.isFrozen(value) || ArrayBuffer.isView(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) {
    if (typeof child === 'object' && child !== null) freezeDeep(child);
  }
}
