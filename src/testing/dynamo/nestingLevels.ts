import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Item } from './compareValues.js';

/**
 * DynamoDB's deepest item, in levels: the item is the first, each map or list inside it one
 * more. DynamoDB Local takes an attribute of 31 maps (or lists) one inside the other and refuses
 * 32, an empty one at the 32nd included.
 *
 * @example
 * ```ts
 * if (itemLevels(item) > MAX_NESTING_LEVELS) throw validationException(NESTING_TOO_DEEP);
 * ```
 */
export const MAX_NESTING_LEVELS = 32;

/**
 * DynamoDB Local's refusal of a `PutItem` (or a transaction's `Put`) whose item nests deeper than
 * {@link MAX_NESTING_LEVELS}; an update that would nest an item deeper fails with
 * `RuntimeValidation.NestingTooDeep`.
 *
 * @example
 * ```ts
 * throw validationException(NESTING_TOO_DEEP);
 * ```
 */
export const NESTING_TOO_DEEP =
  'Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit';

/**
 * How many levels an item (or the named attributes of it) nests: 1 for an item of scalars and
 * sets, one more for each map or list inside another.
 *
 * @example
 * ```ts
 * itemLevels({ pk: { S: 'a' }, m: { M: { l: { L: [] } } } }) // => 3
 * itemLevels(item, ['m']) // only attribute m
 * ```
 */
export function itemLevels(item: Item, names: Iterable<string> = Object.keys(item)): number {
  let deepest = 0;
  for (const name of names) {
    const value = item[name];
    if (value !== undefined) deepest = Math.max(deepest, containerLevels(value));
  }
  return 1 + deepest;
}

/** The maps and lists one inside the other in a value: 0 for a scalar or a set. */
function containerLevels(value: AttributeValue): number {
  const children = value.M !== undefined ? Object.values(value.M) : value.L;
  if (children === undefined) return 0;
  let deepest = 0;
  for (const child of children) deepest = Math.max(deepest, containerLevels(child));
  return 1 + deepest;
}
