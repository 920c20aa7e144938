import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type ResolvedPath, readPath, removePath, resolvePath, setPath } from './attributePath.js';
import { compareBytes, contentOf, type Item, typeOf, wireValue } from './compareValues.js';
import type { Placeholders } from './evaluateCondition.js';
import { freezeItem } from './normalizeItem.js';
import { addNumbers } from './normalizeNumber.js';
import type { ParsedUpdate, UpdateAction, UpdateValue } from './parseUpdate.js';
import { RuntimeValidation, RuntimeValidationError } from './RuntimeValidationError.js';

/**
 * Applies a checked update to an item (the key alone when the item is absent), as DynamoDB
 * does: every `SET` value is read from the item as it was; then `SET`, `REMOVE` (list indexes
 * counted in the original list), `ADD` and `DELETE` are applied. Throws
 * {@link RuntimeValidationError} when the item does not allow it.
 *
 * @example
 * ```ts
 * applyUpdate(parseUpdate('ADD n :one'), [['n']], { pk: { S: 'a' } }, placeholders) // => { pk: …, n: { N: '1' } }
 * ```
 */
export function applyUpdate(
  update: ParsedUpdate,
  targets: readonly ResolvedPath[],
  base: Item,
  placeholders: Placeholders,
): Item {
  const steps = update.actions.map((action, at) => ({
    action,
    target: targets[at] as ResolvedPath,
  }));
  const written = steps.map(({ action }) =>
    action.kind === 'SET' ? evaluateValue(action.value, base, placeholders) : undefined,
  );
  let item = base;
  for (const [at, { target }] of steps.entries()) {
    const value = written[at];
    if (value !== undefined) item = setPath(item, target, value);
  }
  const removals = steps.filter(({ action }) => action.kind === 'REMOVE');
  for (const { target } of removals.sort(byLastIndexDescending)) item = removePath(item, target);
  for (const { action, target } of steps) {
    if (action.kind === 'ADD' || action.kind === 'DELETE')
      item = applySetAction(item, action, target, placeholders);
  }
  return freezeItem(item);
}

function byLastIndexDescending(a: { target: ResolvedPath }, b: { target: ResolvedPath }): number {
  const last = (path: ResolvedPath) => {
    const element = path.at(-1);
    return typeof element === 'number' ? element : -1;
  };
  return last(b.target) - last(a.target);
}

function evaluateValue(value: UpdateValue, item: Item, placeholders: Placeholders): AttributeValue {
  switch (value.kind) {
    case 'value':
      return placeholders.values?.[value.ref] as AttributeValue;
    case 'path': {
      const found = readPath(item, resolvePath(value.path, placeholders.names));
      if (found === undefined) throw new RuntimeValidationError(RuntimeValidation.MissingAttribute);
      return found;
    }
    case 'if_not_exists':
      return (
        readPath(item, resolvePath(value.path, placeholders.names)) ??
        evaluateValue(value.fallback, item, placeholders)
      );
    case 'list_append': {
      const first = evaluateValue(value.first, item, placeholders).L;
      const second = evaluateValue(value.second, item, placeholders).L;
      if (first === undefined || second === undefined) throw wrongType();
      return { L: [...first, ...second] };
    }
    case 'arithmetic': {
      const left = evaluateValue(value.left, item, placeholders).N;
      const right = evaluateValue(value.right, item, placeholders).N;
      if (left === undefined || right === undefined) throw wrongType();
      return { N: exactly(() => addNumbers(left, right, value.operator === '-')) };
    }
  }
}

const wrongType = () => new RuntimeValidationError(RuntimeValidation.WrongType);

/** A number too precise for DynamoDB fails the write, like any other runtime refusal. */
function exactly(sum: () => string): string {
  try {
    return sum();
  } catch (error) {
    throw new RuntimeValidationError((error as Error).message);
  }
}

function applySetAction(
  item: Item,
  action: Extract<UpdateAction, { kind: 'ADD' | 'DELETE' }>,
  target: ResolvedPath,
  placeholders: Placeholders,
): Item {
  const operand = placeholders.values?.[action.ref] as AttributeValue;
  const current = readPath(item, target);
  if (current === undefined) return action.kind === 'ADD' ? setPath(item, target, operand) : item;
  if (action.kind === 'ADD' && current.N !== undefined && operand.N !== undefined) {
    return setPath(item, target, {
      N: exactly(() => addNumbers(current.N as string, operand.N as string)),
    });
  }
  const type = typeOf(current);
  if (type !== typeOf(operand) || !(type === 'SS' || type === 'NS' || type === 'BS'))
    throw wrongType();
  const members = combine(
    contentOf(current, type) as ReadonlyArray<string | Uint8Array>,
    contentOf(operand, type) as ReadonlyArray<string | Uint8Array>,
    action.kind,
  );
  if (members.length === 0) return removePath(item, target);
  return setPath(item, target, wireValue(type, members));
}

function combine<T extends string | Uint8Array>(
  current: readonly T[],
  operand: readonly T[],
  kind: 'ADD' | 'DELETE',
): T[] {
  const contains = memberTest(kind === 'DELETE' ? operand : current);
  if (kind === 'DELETE') return current.filter((member) => !contains(member));
  return [...current, ...operand.filter((member) => !contains(member))];
}

/** Set membership: by value for strings and numbers (normalized), by bytes for binaries. */
function memberTest<T extends string | Uint8Array>(members: readonly T[]): (member: T) => boolean {
  if (members.every((member) => typeof member === 'string')) {
    const set = new Set<unknown>(members);
    return (member) => set.has(member);
  }
  return (member) =>
    members.some((other) => compareBytes(other as Uint8Array, member as Uint8Array) === 0);
}
