import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  checkDistinctPaths,
  type PathSpec,
  type ResolvedPath,
  resolvePath,
} from './attributePath.js';
import { checkConditionOperands } from './checkConditionOperands.js';
import { keyNotScalar } from './checkKeyCondition.js';
import { checkPlaceholders, type UsedPlaceholders } from './checkPlaceholders.js';
import type { Item } from './compareValues.js';
import { validationException } from './dynamoExceptions.js';
import type { Placeholders } from './evaluateCondition.js';
import { normalizeItem } from './normalizeItem.js';
import {
  type Condition,
  type Operand,
  type ParsedCondition,
  parseCondition,
} from './parseCondition.js';
import { parseProjection } from './parseProjection.js';
import type { SimTable } from './SimTable.js';

/**
 * The parameters `Query` and `Scan` share, in wire form.
 *
 * @example
 * ```ts
 * const input: ReadInput = { TableName: 'orders', FilterExpression: '#s = :s', ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':s': { S: 'OPEN' } }, Limit: 10 };
 * ```
 */
export interface ReadInput {
  readonly TableName?: string | undefined;
  readonly FilterExpression?: string | undefined;
  readonly ProjectionExpression?: string | undefined;
  readonly ExpressionAttributeNames?: Record<string, string> | undefined;
  readonly ExpressionAttributeValues?: Record<string, AttributeValue> | undefined;
  readonly Select?: string | undefined;
  readonly Limit?: number | undefined;
  readonly ExclusiveStartKey?: Record<string, AttributeValue> | undefined;
}

/**
 * A `Query` or `Scan` checked as DynamoDB checks it before reading any item.
 *
 * @example
 * ```ts
 * const read: PreparedRead = prepareRead(input, table);
 * ```
 */
export interface PreparedRead {
  readonly table: SimTable;
  readonly placeholders: Placeholders;
  readonly filter: Condition | undefined;
  /** The projection's paths, placeholders replaced; `undefined` for whole items. */
  readonly projection: readonly ResolvedPath[] | undefined;
  /** `Select: 'COUNT'`: the answer carries counts and no `Items`. */
  readonly countOnly: boolean;
  readonly limit: number | undefined;
  /** The `ExclusiveStartKey`, normalized and checked against the key schema. */
  readonly startKey: Item | undefined;
}

const SELECT = ['ALL_ATTRIBUTES', 'ALL_PROJECTED_ATTRIBUTES', 'COUNT', 'SPECIFIC_ATTRIBUTES'];

/**
 * Checks what `Query` and `Scan` share, with DynamoDB Local's wording: `Select` against the
 * projection, `Limit` at least 1, the filter and projection expressions (parsed, placeholders
 * all defined and used together with `keyCondition`, operand types, no overlapping paths, no
 * path into a key attribute), and the `ExclusiveStartKey` against the key schema.
 *
 * @example
 * ```ts
 * const read = prepareRead({ TableName: 't', Select: 'COUNT' }, table);
 * ```
 */
export function prepareRead(
  input: ReadInput,
  table: SimTable,
  keyCondition?: ParsedCondition,
): PreparedRead {
  const countOnly = checkSelect(input.Select, input.ProjectionExpression !== undefined);
  if (input.Limit !== undefined && input.Limit < 1) {
    throw validationException('Limit must be greater than or equal to 1');
  }
  const { filter, projection } = parseExpressions(input, keyCondition);
  const names = input.ExpressionAttributeNames;
  const values = input.ExpressionAttributeValues && normalizeItem(input.ExpressionAttributeValues);
  if (filter) checkConditionOperands(filter.root, values, 'FilterExpression');
  const paths = projection?.paths.map((path) => resolvePath(path, names));
  if (paths) checkDistinctPaths(paths, 'ProjectionExpression');
  const filterPaths = (filter ? conditionPaths(filter.root) : []).map((p) => resolvePath(p, names));
  checkNoPathIntoKey([...filterPaths, ...(paths ?? [])], table);
  return {
    table,
    placeholders: { names, values },
    filter: filter?.root,
    projection: paths,
    countOnly,
    limit: input.Limit,
    startKey: checkStartKey(table, input.ExclusiveStartKey),
  };
}

/** The filter and projection, parsed, their placeholders checked with the key condition's. */
function parseExpressions(input: ReadInput, keyCondition: ParsedCondition | undefined) {
  const filter =
    input.FilterExpression === undefined
      ? undefined
      : parseCondition(input.FilterExpression, 'FilterExpression');
  const projection =
    input.ProjectionExpression === undefined
      ? undefined
      : parseProjection(input.ProjectionExpression);
  const used: UsedPlaceholders[] = [];
  if (keyCondition) used.push({ kind: 'KeyConditionExpression', ...keyCondition });
  if (filter) used.push({ kind: 'FilterExpression', ...filter });
  if (projection) used.push({ kind: 'ProjectionExpression', ...projection });
  checkPlaceholders(used, input.ExpressionAttributeNames, input.ExpressionAttributeValues);
  return { filter, projection };
}

/**
 * Refuses a path into a key attribute (`pk.x`, `sk[0]`): keys are scalars.
 *
 * @example
 * ```ts
 * checkNoPathIntoKey([['pk', 'x']], table); // throws: Key attributes must be scalars
 * ```
 */
export function checkNoPathIntoKey(paths: readonly ResolvedPath[], table: SimTable): void {
  for (const [name, ...rest] of paths) {
    if (rest.length > 0 && table.keyNames.has(String(name))) throw keyNotScalar(String(name));
  }
}

/** Whether `Select` asks for counts only, after refusing what DynamoDB refuses. */
function checkSelect(select: string | undefined, projected: boolean): boolean {
  if (select === undefined) return false;
  if (!SELECT.includes(select)) {
    throw validationException(
      'Select must be ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES, COUNT, or SPECIFIC_ATTRIBUTES',
    );
  }
  if (select === 'ALL_PROJECTED_ATTRIBUTES') {
    throw validationException(
      'ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName',
    );
  }
  if (select === 'COUNT' && projected) {
    throw validationException(
      'Cannot specify the ProjectionExpression when choosing to get only the Count',
    );
  }
  if (select === 'ALL_ATTRIBUTES' && projected) {
    throw validationException(
      'Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES',
    );
  }
  if (select === 'SPECIFIC_ATTRIBUTES' && !projected) {
    throw validationException(
      'Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES',
    );
  }
  return select === 'COUNT';
}

/**
 * Every document path a condition reads, as written.
 *
 * @example
 * ```ts
 * conditionPaths(parseCondition('a = :v AND size(b.c) > :n').root) // => [['a'], ['b', 'c']]
 * ```
 */
export function conditionPaths(condition: Condition): PathSpec[] {
  switch (condition.kind) {
    case 'and':
    case 'or':
      return [...conditionPaths(condition.left), ...conditionPaths(condition.right)];
    case 'not':
      return conditionPaths(condition.condition);
    case 'compare':
      return [condition.left, condition.right].flatMap(operandPaths);
    case 'between':
      return [condition.operand, condition.low, condition.high].flatMap(operandPaths);
    case 'in':
      return [condition.operand, ...condition.candidates].flatMap(operandPaths);
    case 'function':
      return condition.args.flatMap(operandPaths);
  }
}

function operandPaths(operand: Operand): PathSpec[] {
  if (operand.kind === 'path') return [operand.path];
  return operand.kind === 'size' ? operandPaths(operand.operand) : [];
}

/** The start key, normalized, if it names exactly the key attributes with their types. */
function checkStartKey(
  table: SimTable,
  startKey: Record<string, AttributeValue> | undefined,
): Item | undefined {
  if (startKey === undefined) return undefined;
  if (Object.keys(startKey).length !== table.keys.length) {
    throw validationException("Exclusive Start Key must have same size as table's key schema");
  }
  for (const key of table.keys) {
    const value = startKey[key.name];
    if (value === undefined) throw validationException('The provided starting key is invalid');
    if (value[key.type] === undefined) {
      throw validationException('Type mismatch for attribute to update');
    }
    if (value.S === '' || value.B?.byteLength === 0) {
      throw validationException(
        `The provided starting key is invalid: One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty ${key.type === 'B' ? 'binary' : 'string'} value. Key: ${key.name}`,
      );
    }
  }
  return normalizeItem(startKey);
}
