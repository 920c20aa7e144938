import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { resolvePath } from './attributePath.js';
import { checkConditionOperands } from './checkConditionOperands.js';
import { type Item, typeOf, valuesEqual } from './compareValues.js';
import { validationException } from './dynamoExceptions.js';
import { evaluateCondition, operandValue, type Placeholders } from './evaluateCondition.js';
import { valueBytes } from './itemBytes.js';
import type { Condition, Operand } from './parseCondition.js';
import { type KeyAttribute, MAX_KEY_BYTES, type SimTable } from './SimTable.js';

/**
 * A checked `KeyConditionExpression`: the partition key's value, and the condition on the sort
 * key when there is one.
 *
 * @example
 * ```ts
 * const key: KeyCondition = checkKeyCondition(parseCondition('pk = :p', 'KeyConditionExpression').root, table, placeholders);
 * ```
 */
export interface KeyCondition {
  /** The partition key's value (`pk = :p`). */
  readonly partitionValue: AttributeValue;
  /** Whether an item (or a start key) has that partition value and meets the sort condition. */
  readonly matches: (item: Item) => boolean;
}

/** One condition of the expression with the key attribute it is on. */
interface KeyPart {
  readonly condition: Condition;
  readonly name: string;
}

function invalid(message: string) {
  return validationException(message);
}

/**
 * Checks a parsed `KeyConditionExpression` as DynamoDB does (DynamoDB Local's wording): only
 * `AND` of at most two conditions, one on each key attribute; the partition key compared with
 * `=`; the sort key with `=`, `<`, `<=`, `>`, `>=`, `BETWEEN` or `begins_with`, the key attribute
 * first; values of the key's type, not empty, a sort key's at most 1,024 bytes. Refuses anything
 * else (`OR`, `NOT`, `<>`, `IN`, other functions, `size`, nested paths, a non-key attribute)
 * with a `ValidationException`.
 *
 * @example
 * ```ts
 * checkKeyCondition(parseCondition('pk = :p OR sk = :s', 'KeyConditionExpression').root, table, placeholders); // throws: Invalid operator used in KeyConditionExpression: OR
 * ```
 */
export function checkKeyCondition(
  root: Condition,
  table: SimTable,
  placeholders: Placeholders,
): KeyCondition {
  checkOperators(root);
  const parts = conjuncts(root).map((condition) => keyPart(condition, table, placeholders));
  if (new Set(parts.map((part) => part.name)).size !== parts.length) {
    throw invalid('KeyConditionExpressions must only contain one condition per key');
  }
  if (parts.length > 2) throw invalid('Conditions can be of length 1 or 2 only');
  const [partition, sort] = matchSchema(parts, table);
  for (const part of parts) {
    checkConditionOperands(part.condition, placeholders.values, 'KeyConditionExpression');
  }
  checkValueTypes(parts, table, placeholders);
  const key = table.keys[0] as KeyAttribute;
  const value = valueOperand(partition.condition);
  const partitionValue = operandValue(value, undefined, placeholders) as AttributeValue;
  checkNotEmpty(partitionValue, key);
  if (sort) checkSortValues(sort, table.keys[1] as KeyAttribute, placeholders);
  const sortCondition = sort?.condition;
  return {
    partitionValue,
    matches: (item) => {
      const itemValue = item[key.name];
      if (itemValue === undefined || !valuesEqual(itemValue, partitionValue)) return false;
      return sortCondition === undefined || evaluateCondition(sortCondition, item, placeholders);
    },
  };
}

/** Refuses, in the order DynamoDB meets them, an operator or a function a key condition lacks. */
function checkOperators(condition: Condition): void {
  const refuse = (operator: string) =>
    invalid(`Invalid operator used in KeyConditionExpression: ${operator}`);
  switch (condition.kind) {
    case 'and':
      checkOperators(condition.left);
      checkOperators(condition.right);
      return;
    case 'or':
      throw refuse('OR');
    case 'not':
      throw refuse('NOT');
    case 'in':
      throw refuse('IN');
    case 'function':
      if (condition.name !== 'begins_with') throw refuse(condition.name);
      break;
    case 'compare':
      if (condition.comparator === '<>') throw refuse('<>');
      break;
    case 'between':
      break;
  }
  if (operandsOf(condition).some((operand) => operand.kind === 'size')) {
    throw invalid('KeyConditionExpressions cannot contain nested operations');
  }
}

function conjuncts(condition: Condition): Condition[] {
  if (condition.kind !== 'and') return [condition];
  return [...conjuncts(condition.left), ...conjuncts(condition.right)];
}

function operandsOf(condition: Condition): readonly Operand[] {
  switch (condition.kind) {
    case 'compare':
      return [condition.left, condition.right];
    case 'between':
      return [condition.operand, condition.low, condition.high];
    case 'function':
      return condition.args;
    default:
      return [];
  }
}

/** The one value operand of a checked key condition's part that is a comparison. */
function valueOperand(condition: Condition): Operand {
  return operandsOf(condition).find((operand) => operand.kind === 'value') as Operand;
}

/** The key attribute a condition is on: exactly one attribute, top-level, first when it must be. */
function keyPart(condition: Condition, table: SimTable, placeholders: Placeholders): KeyPart {
  const operands = operandsOf(condition);
  const paths = operands.flatMap((operand) => (operand.kind === 'path' ? [operand.path] : []));
  const [path, ...others] = paths;
  if (others.length > 0) {
    throw invalid(
      'Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition',
    );
  }
  if (path === undefined) {
    throw invalid('Invalid condition in KeyConditionExpression: No key attribute specified');
  }
  const [name, ...rest] = resolvePath(path, placeholders.names);
  if (rest.length > 0) {
    if (table.keyNames.has(String(name))) throw keyNotScalar(String(name));
    throw invalid('KeyConditionExpressions cannot have conditions on nested attributes');
  }
  if (condition.kind !== 'compare' && operands[0]?.kind !== 'path') {
    const operator = condition.kind === 'between' ? 'BETWEEN' : 'begins_with';
    throw invalid(
      `Invalid condition in KeyConditionExpression: ${operator} operator must have the key attribute as its first operand`,
    );
  }
  return { condition, name: String(name) };
}

/**
 * The refusal of a path into a key attribute (`pk.x`, `sk[0]`) in any expression of a read.
 *
 * @example
 * ```ts
 * throw keyNotScalar('pk');
 * ```
 */
export function keyNotScalar(name: string) {
  return validationException(
    `Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: ${name}`,
  );
}

/** The partition key's part and the sort key's (if any), or DynamoDB's refusal. */
function matchSchema(parts: readonly KeyPart[], table: SimTable): [KeyPart, KeyPart | undefined] {
  const [hash, range] = table.keys as [KeyAttribute, KeyAttribute | undefined];
  if (range === undefined && parts.length > 1) throw invalid('Query key condition not supported');
  const partition = parts.find((part) => part.name === hash.name);
  const others = parts.filter((part) => part !== partition);
  if (partition === undefined || others.some((part) => part.name !== range?.name)) {
    throw invalid('Query condition missed key schema element');
  }
  const isEquality =
    partition.condition.kind === 'compare' && partition.condition.comparator === '=';
  if (!isEquality) throw invalid('Query key condition not supported');
  return [partition, others[0]];
}

function checkValueTypes(
  parts: readonly KeyPart[],
  table: SimTable,
  placeholders: Placeholders,
): void {
  for (const part of parts) {
    const type = table.keys.find((key) => key.name === part.name)?.type;
    for (const operand of operandsOf(part.condition)) {
      if (operand.kind !== 'value') continue;
      const value = placeholders.values?.[operand.ref] as AttributeValue;
      if (typeOf(value) === type) continue;
      throw invalid(
        'One or more parameter values were invalid: Condition parameter type does not match schema type',
      );
    }
  }
}

/** Local refuses a sort key value over 1,024 bytes first, then an empty one, whichever operand. */
function checkSortValues(sort: KeyPart, key: KeyAttribute, placeholders: Placeholders): void {
  const values = operandsOf(sort.condition)
    .filter((operand) => operand.kind === 'value')
    .map((operand) => operandValue(operand, undefined, placeholders) as AttributeValue);
  if (values.some((value) => valueBytes(value) > MAX_KEY_BYTES.sort)) {
    throw invalid(
      'One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes',
    );
  }
  for (const value of values) checkNotEmpty(value, key);
}

function checkNotEmpty(value: AttributeValue, key: KeyAttribute): void {
  const empty = value.S === '' || (value.B !== undefined && value.B.byteLength === 0);
  if (!empty) return;
  throw validationException(
    `One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty ${key.type === 'B' ? 'binary' : 'string'} value. Key: ${key.name}`,
  );
}
