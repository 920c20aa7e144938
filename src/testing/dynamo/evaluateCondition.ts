import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { readPath, resolvePath } from './attributePath.js';
import { compareBytes, compareOrdered, type Item, typeOf, valuesEqual } from './compareValues.js';
import type { Comparator, Condition, Operand } from './parseCondition.js';

/**
 * The placeholders of a request, all known to be defined and values normalized.
 *
 * @example
 * ```ts
 * const placeholders: Placeholders = { names: { '#s': 'status' }, values: { ':v': { S: 'DONE' } } };
 * ```
 */
export interface Placeholders {
  readonly names: Readonly<Record<string, string>> | undefined;
  readonly values: Readonly<Record<string, AttributeValue>> | undefined;
}

/**
 * Whether a parsed condition holds for an item (`undefined` when absent), by DynamoDB's rules:
 * a comparison with an absent attribute or a value of another type is false (`<>` true);
 * numbers compare exactly, strings by code point, binaries by unsigned byte.
 *
 * @example
 * ```ts
 * evaluateCondition(parseCondition('n > :v').root, { n: { N: '10' } }, { names: undefined, values: { ':v': { N: '9' } } }) // => true
 * ```
 */
export function evaluateCondition(
  condition: Condition,
  item: Item | undefined,
  placeholders: Placeholders,
): boolean {
  const holds = (inner: Condition) => evaluateCondition(inner, item, placeholders);
  const value = (operand: Operand) => operandValue(operand, item, placeholders);
  switch (condition.kind) {
    case 'and':
      return holds(condition.left) && holds(condition.right);
    case 'or':
      return holds(condition.left) || holds(condition.right);
    case 'not':
      return !holds(condition.condition);
    case 'compare':
      return compare(condition.comparator, value(condition.left), value(condition.right));
    case 'between':
      return between(value(condition.operand), value(condition.low), value(condition.high));
    case 'in': {
      const candidate = value(condition.operand);
      return condition.candidates.some((other) => compare('=', candidate, value(other)));
    }
    case 'function':
      return callFunction(condition.name, condition.args.map(value));
  }
}

/**
 * The value of an operand for an item: a path's value, a placeholder's value, or a size.
 *
 * @example
 * ```ts
 * operandValue({ kind: 'size', operand: { kind: 'path', path: ['s'] } }, { s: { S: 'abc' } }, { names: undefined, values: undefined }) // => { N: '3' }
 * ```
 */
export function operandValue(
  operand: Operand,
  item: Item | undefined,
  placeholders: Placeholders,
): AttributeValue | undefined {
  switch (operand.kind) {
    case 'path':
      return readPath(item, resolvePath(operand.path, placeholders.names));
    case 'value':
      return placeholders.values?.[operand.ref];
    case 'size': {
      const size = sizeOf(operandValue(operand.operand, item, placeholders));
      return size === undefined ? undefined : { N: String(size) };
    }
  }
}

/** `size()`: UTF-16 length of a string (as DynamoDB Local and MiniStack count), bytes, elements. */
function sizeOf(value: AttributeValue | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (value.S !== undefined) return value.S.length;
  if (value.B !== undefined) return value.B.byteLength;
  if (value.L !== undefined) return value.L.length;
  if (value.M !== undefined) return Object.keys(value.M).length;
  return (value.SS ?? value.NS ?? value.BS)?.length;
}

function compare(
  comparator: Comparator,
  left: AttributeValue | undefined,
  right: AttributeValue | undefined,
): boolean {
  if (comparator === '<>') return !compare('=', left, right);
  if (left === undefined || right === undefined) return false;
  if (comparator === '=') return valuesEqual(left, right);
  const order = compareOrdered(left, right);
  if (order === undefined) return false;
  if (comparator === '<') return order < 0;
  if (comparator === '<=') return order <= 0;
  if (comparator === '>') return order > 0;
  return order >= 0;
}

function between(
  value: AttributeValue | undefined,
  low: AttributeValue | undefined,
  high: AttributeValue | undefined,
): boolean {
  return compare('>=', value, low) && compare('<=', value, high);
}

function callFunction(name: string, args: ReadonlyArray<AttributeValue | undefined>): boolean {
  const [first, second] = args;
  switch (name) {
    case 'attribute_exists':
      return first !== undefined;
    case 'attribute_not_exists':
      return first === undefined;
    case 'attribute_type':
      return first !== undefined && second?.S === typeOf(first);
    case 'begins_with':
      return beginsWith(first, second);
    default:
      return contains(first, second);
  }
}

function beginsWith(
  value: AttributeValue | undefined,
  prefix: AttributeValue | undefined,
): boolean {
  if (value?.S !== undefined && prefix?.S !== undefined) return value.S.startsWith(prefix.S);
  if (value?.B !== undefined && prefix?.B !== undefined) {
    return (
      prefix.B.length <= value.B.length &&
      compareBytes(value.B.subarray(0, prefix.B.length), prefix.B) === 0
    );
  }
  return false;
}

function contains(value: AttributeValue | undefined, member: AttributeValue | undefined): boolean {
  if (value === undefined || member === undefined) return false;
  if (value.S !== undefined) return member.S !== undefined && value.S.includes(member.S);
  if (value.SS !== undefined) return member.S !== undefined && value.SS.includes(member.S);
  if (value.NS !== undefined) return member.N !== undefined && value.NS.includes(member.N);
  if (value.BS !== undefined) {
    return (
      member.B !== undefined &&
      value.BS.some((bytes) => compareBytes(bytes, member.B as Uint8Array) === 0)
    );
  }
  if (value.L !== undefined) return value.L.some((element) => valuesEqual(element, member));
  return false;
}
