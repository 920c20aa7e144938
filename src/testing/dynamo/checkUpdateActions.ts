import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { checkDistinctPaths, type ResolvedPath, resolvePath } from './attributePath.js';
import { typeOf } from './compareValues.js';
import { validationException } from './dynamoExceptions.js';
import type { Placeholders } from './evaluateCondition.js';
import type { ParsedUpdate, UpdateAction, UpdateOperand, UpdateValue } from './parseUpdate.js';

/** The type names DynamoDB prints for ADD and DELETE operands. */
const LONG_TYPE_NAMES: Record<string, string> = {
  S: 'STRING',
  N: 'NUMBER',
  B: 'BINARY',
  BOOL: 'BOOLEAN',
  NULL: 'NULL',
  L: 'LIST',
  M: 'MAP',
  SS: 'STRING_SET',
  NS: 'NUMBER_SET',
  BS: 'BINARY_SET',
};
const SET_TYPES = new Set(['SS', 'NS', 'BS']);

/**
 * Checks what DynamoDB refuses in an update once it knows the request's names and values,
 * before it reads the item: operands of the wrong type (`ADD` of a string, `+` of a string,
 * `list_append` of a non-list), a write to a key attribute, two paths that overlap or conflict.
 * Returns each action's path with placeholders replaced.
 *
 * @example
 * ```ts
 * checkUpdateActions(parseUpdate('SET a = :v, a.b = :v'), placeholders, new Set(['pk'])); // throws: overlap
 * ```
 */
export function checkUpdateActions(
  update: ParsedUpdate,
  placeholders: Placeholders,
  keyNames: ReadonlySet<string>,
): ResolvedPath[] {
  for (const action of update.actions) checkOperandTypes(action, placeholders.values);
  const targets = update.actions.map((action) => resolvePath(action.path, placeholders.names));
  for (const target of targets) checkNotKey(target, keyNames);
  checkDistinctPaths(targets, 'UpdateExpression');
  return targets;
}

function invalid(detail: string) {
  return validationException(`Invalid UpdateExpression: ${detail}`);
}

function checkOperandTypes(
  action: UpdateAction,
  values: Readonly<Record<string, AttributeValue>> | undefined,
): void {
  if (action.kind === 'SET') checkValue(action.value, values);
  if (action.kind === 'SET' || action.kind === 'REMOVE') return;
  const type = typeOf(values?.[action.ref] as AttributeValue);
  if (SET_TYPES.has(type) || (action.kind === 'ADD' && type === 'N')) return;
  throw invalid(
    `Incorrect operand type for operator or function; operator: ${action.kind}, operand type: ${LONG_TYPE_NAMES[type]}, typeSet: ALLOWED_FOR_${action.kind}_OPERAND`,
  );
}

function checkValue(
  value: UpdateValue,
  values: Readonly<Record<string, AttributeValue>> | undefined,
): void {
  if (value.kind === 'arithmetic') {
    checkDirect(value.operator, [value.left, value.right], 'N', values);
    checkValue(value.left, values);
    checkValue(value.right, values);
  } else if (value.kind === 'list_append') {
    checkDirect('list_append', [value.first, value.second], 'L', values);
    checkValue(value.first, values);
    checkValue(value.second, values);
  } else if (value.kind === 'if_not_exists') {
    checkValue(value.fallback, values);
  }
}

/** The `:value` operands written directly in a function or operator must have its type. */
function checkDirect(
  operator: string,
  operands: readonly UpdateOperand[],
  expected: string,
  values: Readonly<Record<string, AttributeValue>> | undefined,
): void {
  for (const operand of operands) {
    if (operand.kind !== 'value') continue;
    const type = typeOf(values?.[operand.ref] as AttributeValue);
    if (type === expected) continue;
    throw invalid(
      `Incorrect operand type for operator or function; operator or function: ${operator}, operand type: ${type}`,
    );
  }
}

function checkNotKey(target: ResolvedPath, keyNames: ReadonlySet<string>): void {
  const [name] = target;
  if (typeof name !== 'string' || !keyNames.has(name)) return;
  throw validationException(
    `One or more parameter values were invalid: Cannot update attribute ${name}. This attribute is part of the key`,
  );
}
