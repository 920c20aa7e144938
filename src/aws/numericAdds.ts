import { NumberValue } from '@aws-sdk/lib-dynamodb';
import type { TransactItem } from '../core/TransactionBuilder.js';

/**
 * One `path :value` of an `ADD` of a number: the attribute's name (a `#name` resolved), whether
 * the expression wrote it as a plain name, and the integer added.
 *
 * @example
 * ```ts
 * const add: NumericAdd = { name: 'balanceCents', plain: true, amount: 250n };
 * ```
 */
export interface NumericAdd {
  readonly name: string;
  readonly plain: boolean;
  readonly amount: bigint;
}

/**
 * An `Update` that only adds integers to top-level attributes of one item, with no condition:
 * commutative with any other such update of the item, so several merge into one.
 *
 * @example
 * ```ts
 * const update = parseNumericAdds(item); // undefined unless item is a plain numeric ADD
 * ```
 */
export interface NumericAddUpdate {
  readonly tableName: string;
  readonly key: Readonly<Record<string, unknown>>;
  readonly adds: readonly NumericAdd[];
}

/** The fields a mergeable `Update` may set: no condition, no return values on its failure. */
const MERGEABLE_FIELDS: ReadonlySet<string> = new Set([
  'TableName',
  'Key',
  'UpdateExpression',
  'ExpressionAttributeNames',
  'ExpressionAttributeValues',
]);

/** One `ADD` section, its keyword in capitals as the DynamoDB guide writes it. */
const ADD_SECTION = /^\s*ADD\s([\s\S]*)$/;
/**
 * One `path :value`: a top-level plain name, or a `#name` placeholder (a pound sign, then
 * alphanumerics and `_`: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ExpressionPlaceholders.html).
 * No document path (`a.b`, `a[0]`): a merged update adds to the same attribute only.
 */
const ADD_ACTION = /^\s*(#[A-Za-z0-9_]+|[A-Za-z][A-Za-z0-9_]*)\s+(:[A-Za-z0-9_]+)\s*$/;
/** A lib-dynamodb `NumberValue` holding an integer within DynamoDB's 38 digits of precision. */
const INTEGER_TEXT = /^-?(?:0|[1-9]\d{0,37})$/;

/**
 * The numeric `ADD`s of a transaction item, or undefined unless it is an `Update` whose
 * `UpdateExpression` is only `ADD path :value, …` (plain names or `#names`, each once, no key
 * attribute), whose values are safe integers or integer `NumberValue`s, with every name and value
 * given used, and no `ConditionExpression` or `ReturnValuesOnConditionCheckFailure`. Strict on
 * purpose: whatever it does not recognise is not merged, and is sent as the handler wrote it.
 * `ADD` of a number adds to the attribute, or sets it when absent, creating the item when missing
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html#Expressions.UpdateExpressions.ADD),
 * so k such updates have the effect of one that adds their sum, in any order.
 *
 * @example
 * ```ts
 * parseNumericAdds({ Update: { TableName: 'accounts', Key: { accountId: 'a' }, UpdateExpression: 'ADD balanceCents :amount', ExpressionAttributeValues: { ':amount': 250 } } })
 * // => { tableName: 'accounts', key: { accountId: 'a' }, adds: [{ name: 'balanceCents', plain: true, amount: 250n }] }
 * ```
 */
export function parseNumericAdds(item: TransactItem): NumericAddUpdate | undefined {
  const update = onlyUpdate(item);
  if (update === undefined) return undefined;
  const { TableName, Key, UpdateExpression } = update;
  const names = update.ExpressionAttributeNames ?? {};
  const values = update.ExpressionAttributeValues ?? {};
  if (typeof TableName !== 'string' || !isRecord(Key) || typeof UpdateExpression !== 'string') {
    return undefined;
  }
  if (!isRecord(names) || !isRecord(values)) return undefined;
  const section = ADD_SECTION.exec(UpdateExpression)?.[1];
  if (section === undefined) return undefined;
  const usedNames = new Set<string>();
  const usedValues = new Set<string>();
  const adds: NumericAdd[] = [];
  for (const action of section.split(',')) {
    const add = parseAction(action, names, values);
    if (add === undefined || Object.hasOwn(Key, add.name)) return undefined;
    if (adds.some(({ name }) => name === add.name)) return undefined; // overlapping paths
    adds.push({ name: add.name, plain: add.plain, amount: add.amount });
    if (!add.plain) usedNames.add(add.path);
    usedValues.add(add.ref);
  }
  // DynamoDB refuses a name or value the expression does not use: so must the merge.
  if (Object.keys(names).some((placeholder) => !usedNames.has(placeholder))) return undefined;
  if (Object.keys(values).some((placeholder) => !usedValues.has(placeholder))) return undefined;
  return { tableName: TableName, key: Key, adds };
}

/**
 * The ids of a prepared commit's items that may merge with other messages' updates of the same
 * item: its business operations that {@link parseNumericAdds} recognises and that no other of
 * its items writes. The inbox entry (index 0) and the outbox items never merge.
 *
 * @example
 * ```ts
 * const mergeableIds = mergeableItemIds(items, itemIds);
 * ```
 */
export function mergeableItemIds(
  items: readonly TransactItem[],
  itemIds: readonly string[],
): ReadonlySet<string> {
  const occurrences = new Map<string, number>();
  for (const id of itemIds) occurrences.set(id, (occurrences.get(id) ?? 0) + 1);
  const mergeable = new Set<string>();
  for (const [index, item] of items.entries()) {
    const id = itemIds[index];
    if (index === 0 || id === undefined || occurrences.get(id) !== 1) continue;
    if (parseNumericAdds(item) !== undefined) mergeable.add(id);
  }
  return mergeable;
}

/**
 * One `Update` with the effect of several numeric `ADD`s of one item: each attribute's amounts
 * summed exactly (BigInt), in the order attributes first appear. Placeholders are its own
 * (`#a0`, `:a0`, …), so the members' cannot collide; an attribute any member wrote as a plain
 * name stays plain, so that a name DynamoDB refuses plainly (a reserved word) is refused merged
 * as it would be alone.
 *
 * @example
 * ```ts
 * mergeNumericAdds([first, second]).Update?.UpdateExpression // => 'ADD balanceCents :a0'
 * ```
 */
export function mergeNumericAdds(updates: readonly NumericAddUpdate[]): TransactItem {
  const [first] = updates;
  if (first === undefined) throw new RangeError('mergeNumericAdds needs at least one update');
  const totals = new Map<string, { amount: bigint; plain: boolean }>();
  for (const { adds } of updates) {
    for (const { name, plain, amount } of adds) {
      const total = totals.get(name) ?? { amount: 0n, plain: false };
      totals.set(name, { amount: total.amount + amount, plain: total.plain || plain });
    }
  }
  const names: Record<string, string> = {};
  const values: Record<string, number | NumberValue> = {};
  const actions = [...totals].map(([name, { amount, plain }], index) => {
    const path = plain ? name : `#a${index}`;
    if (!plain) names[path] = name;
    values[`:a${index}`] = numberOf(amount);
    return `${path} :a${index}`;
  });
  return {
    Update: {
      TableName: first.tableName,
      Key: { ...first.key },
      UpdateExpression: `ADD ${actions.join(', ')}`,
      ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
    },
  };
}

/** The item's `Update` input when it is an `Update` with only the fields a merge may carry. */
function onlyUpdate(item: TransactItem): Record<string, unknown> | undefined {
  const operations = Object.entries(item).filter(([, input]) => input !== undefined);
  const [only] = operations;
  if (operations.length !== 1 || only?.[0] !== 'Update' || !isRecord(only[1])) return undefined;
  const update = only[1];
  const fields = Object.entries(update).filter(([, value]) => value !== undefined);
  return fields.every(([field]) => MERGEABLE_FIELDS.has(field)) ? update : undefined;
}

function parseAction(
  action: string,
  names: Record<string, unknown>,
  values: Record<string, unknown>,
): (NumericAdd & { path: string; ref: string }) | undefined {
  const [, path, ref] = ADD_ACTION.exec(action) ?? [];
  if (path === undefined || ref === undefined || !Object.hasOwn(values, ref)) return undefined;
  const plain = !path.startsWith('#');
  const name = plain ? path : Object.hasOwn(names, path) ? names[path] : undefined;
  const amount = integerOf(values[ref]);
  if (typeof name !== 'string' || name === '' || amount === undefined) return undefined;
  return { name, plain, amount, path, ref };
}

/** A safe integer or an integer `NumberValue` as a BigInt; anything else (a decimal, a set) undefined. */
function integerOf(value: unknown): bigint | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  if (value instanceof NumberValue && INTEGER_TEXT.test(value.value)) return BigInt(value.value);
  return undefined;
}

/** A sum as lib-dynamodb writes it exactly: a number while safe, a `NumberValue` beyond. */
function numberOf(amount: bigint): number | NumberValue {
  const safe =
    amount >= BigInt(Number.MIN_SAFE_INTEGER) && amount <= BigInt(Number.MAX_SAFE_INTEGER);
  return safe ? Number(amount) : NumberValue.from(amount.toString());
}

/** A plain object, as lib-dynamodb's inputs are: a Map or a class instance is not recognised. */
function isRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
