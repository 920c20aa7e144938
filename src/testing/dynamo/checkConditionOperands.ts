import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { AttributeType, compareOrdered, contentOf, typeOf } from './compareValues.js';
import { validationException } from './dynamoExceptions.js';
import type { Condition, ConditionKind, Operand } from './parseCondition.js';

type Values = Readonly<Record<string, AttributeValue>> | undefined;

const ORDERED_TYPES = new Set<string>(['N', 'S', 'B']);
const PREFIX_TYPES = new Set<string>(['S', 'B']);

/**
 * Checks what DynamoDB refuses in a condition once it knows the request's values, before it
 * reads any item: a placeholder of an unordered type in `<`/`BETWEEN`, a number in
 * `begins_with`, an unknown type name in `attribute_type`, `BETWEEN` bounds of two types or in
 * the wrong order. Throws a `ValidationException` naming the expression's `kind`.
 *
 * @example
 * ```ts
 * checkConditionOperands(parseCondition('a < :v').root, { ':v': { BOOL: true } }); // throws
 * ```
 */
export function checkConditionOperands(
  condition: Condition,
  values: Values,
  kind: ConditionKind = 'ConditionExpression',
): void {
  const context = { values, kind };
  switch (condition.kind) {
    case 'and':
    case 'or':
      checkConditionOperands(condition.left, values, kind);
      checkConditionOperands(condition.right, values, kind);
      break;
    case 'not':
      checkConditionOperands(condition.condition, values, kind);
      break;
    case 'compare':
      if (condition.comparator !== '=' && condition.comparator !== '<>') {
        checkTypes(condition.comparator, [condition.left, condition.right], context, ORDERED_TYPES);
      }
      break;
    case 'between':
      checkBetween(condition.operand, condition.low, condition.high, context);
      break;
    case 'function':
      checkFunction(condition.name, condition.args, context);
      break;
    case 'in':
      break;
  }
}

interface Context {
  readonly values: Values;
  readonly kind: ConditionKind;
}

function invalid(context: Context, detail: string) {
  return validationException(`Invalid ${context.kind}: ${detail}`);
}

function placeholderValue(
  operand: Operand | undefined,
  values: Values,
): AttributeValue | undefined {
  return operand?.kind === 'value' ? values?.[operand.ref] : undefined;
}

function checkTypes(
  operator: string,
  operands: readonly Operand[],
  context: Context,
  allowed: ReadonlySet<string>,
): void {
  for (const operand of operands) {
    const value = placeholderValue(operand, context.values);
    if (value === undefined || allowed.has(typeOf(value))) continue;
    throw invalid(
      context,
      `Incorrect operand type for operator or function; operator or function: ${operator}, operand type: ${typeOf(value)}`,
    );
  }
}

function shown(value: AttributeValue): string {
  const type = typeOf(value);
  return `AttributeValue: {${type}:${String(contentOf(value, type))}}`;
}

function checkBetween(operand: Operand, low: Operand, high: Operand, context: Context): void {
  checkTypes('BETWEEN', [operand, low, high], context, ORDERED_TYPES);
  const lowValue = placeholderValue(low, context.values);
  const highValue = placeholderValue(high, context.values);
  if (lowValue === undefined || highValue === undefined) return;
  const bounds = `lower bound operand: ${shown(lowValue)}, upper bound operand: ${shown(highValue)}`;
  const order = compareOrdered(lowValue, highValue);
  if (order === undefined) {
    throw invalid(
      context,
      `The BETWEEN operator requires same data type for lower and upper bounds; ${bounds}`,
    );
  }
  if (order > 0) {
    throw invalid(
      context,
      `The BETWEEN operator requires upper bound to be greater than or equal to lower bound; ${bounds}`,
    );
  }
}

function checkFunction(name: string, args: readonly Operand[], context: Context): void {
  if (name === 'begins_with') checkTypes(name, args, context, PREFIX_TYPES);
  if (name !== 'attribute_type') return;
  const type = placeholderValue(args[1], context.values);
  if (type === undefined) return;
  if (type.S === undefined) checkTypes(name, [args[1] as Operand], context, new Set(['S']));
  else if (!Object.hasOwn(AttributeType, type.S)) {
    throw invalid(
      context,
      `Invalid attribute type name found; type: ${type.S}, valid types: {N,BS,L,B,NULL,M,S,SS,NS,BOOL}`,
    );
  }
}
