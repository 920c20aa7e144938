import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { applyUpdate } from './applyUpdate.js';
import type { ResolvedPath } from './attributePath.js';
import { checkConditionOperands } from './checkConditionOperands.js';
import { checkPlaceholders, type UsedPlaceholders } from './checkPlaceholders.js';
import { checkUpdateActions } from './checkUpdateActions.js';
import type { Item } from './compareValues.js';
import { validationException } from './dynamoExceptions.js';
import { evaluateCondition, type Placeholders } from './evaluateCondition.js';
import { itemBytes, MAX_ITEM_BYTES } from './itemBytes.js';
import { itemLevels, MAX_NESTING_LEVELS, NESTING_TOO_DEEP } from './nestingLevels.js';
import { normalizeItem } from './normalizeItem.js';
import { type Condition, parseCondition } from './parseCondition.js';
import { type ParsedUpdate, parseUpdate } from './parseUpdate.js';
import { RuntimeValidation, RuntimeValidationError } from './RuntimeValidationError.js';
import { KEY_TOO_LARGE, type OversizedKey, type SimTable } from './SimTable.js';

/**
 * The four kinds of item write, as `TransactWriteItems` names them.
 *
 * @example
 * ```ts
 * const kind: WriteKind = 'ConditionCheck';
 * ```
 */
export type WriteKind = 'Put' | 'Update' | 'Delete' | 'ConditionCheck';

/**
 * The parameters of one item write, whichever operation carries it.
 *
 * @example
 * ```ts
 * const input: WriteInput = { TableName: 'stock', Key: { sku: { S: 'a' } }, ConditionExpression: 'available >= :q', ExpressionAttributeValues: { ':q': { N: '2' } } };
 * ```
 */
export interface WriteInput {
  readonly TableName?: string | undefined;
  readonly Key?: Record<string, AttributeValue> | undefined;
  readonly Item?: Record<string, AttributeValue> | undefined;
  readonly ConditionExpression?: string | undefined;
  readonly UpdateExpression?: string | undefined;
  readonly ExpressionAttributeNames?: Record<string, string> | undefined;
  readonly ExpressionAttributeValues?: Record<string, AttributeValue> | undefined;
  readonly ReturnValuesOnConditionCheckFailure?: string | undefined;
}

/**
 * A write checked against everything DynamoDB checks before it reads the item.
 *
 * @example
 * ```ts
 * const write: PreparedWrite = prepareWrite('Delete', { TableName: 't', Key: key }, tableOf);
 * ```
 */
export interface PreparedWrite {
  readonly kind: WriteKind;
  readonly table: SimTable;
  readonly id: string;
  readonly key: Item;
  /** A key value is over its limit (a transaction's write: it cancels with a `ValidationError`). */
  readonly keyTooLarge: boolean;
  /** The normalized item of a Put. */
  readonly item: Item | undefined;
  /** What the write counts toward a transaction's 4 MB: a Put's item, else key and values. */
  readonly payloadBytes: number;
  readonly condition: Condition | undefined;
  readonly update: { readonly parsed: ParsedUpdate; readonly targets: ResolvedPath[] } | undefined;
  readonly placeholders: Placeholders;
  readonly returnOldOnFailure: boolean;
}

/**
 * What a prepared write does to the item it finds.
 *
 * @example
 * ```ts
 * const outcome: WriteOutcome = evaluateWrite(write, current);
 * if (!outcome.ok) console.log(outcome.code);
 * ```
 */
export type WriteOutcome =
  | { readonly ok: true; readonly next: Item | undefined }
  | {
      readonly ok: false;
      readonly code: 'ConditionalCheckFailed' | 'ValidationError';
      readonly message: string;
    };

/**
 * Checks one write as DynamoDB does before reading the item — the table exists, a Put's item
 * size and nesting, the key fits the schema and its size limits, the expressions parse, the
 * placeholders match, operand types — and returns it ready to evaluate. Throws the SDK exception
 * DynamoDB answers; a key value over its limit is refused, or with `oversized: 'report'` (a
 * transaction) left for {@link evaluateWrite} to fail.
 *
 * @example
 * ```ts
 * const write = prepareWrite('Put', { TableName: 'inbox', Item: item }, (name) => tables.get(name));
 * ```
 */
export function prepareWrite(
  kind: WriteKind,
  input: WriteInput,
  tableOf: (nameOrArn: string | undefined) => SimTable,
  oversized: OversizedKey = 'refuse',
): PreparedWrite {
  const table = tableOf(input.TableName);
  const item = kind === 'Put' ? normalizeItem(input.Item ?? {}) : undefined;
  const itemSize = item && checkItemLimits(item);
  const { id, key, tooLarge } = item
    ? table.keyOfItem(item, oversized)
    : table.keyOfKey(normalizeItem(input.Key ?? {}), oversized);
  if (kind === 'ConditionCheck' && input.ConditionExpression === undefined) {
    throw validationException(
      "1 validation error detected: Value null at 'conditionExpression' failed to satisfy constraint: Member must not be null",
    );
  }
  const expressions = parseExpressions(kind, input);
  const names = input.ExpressionAttributeNames;
  checkPlaceholders(expressions.used, names, input.ExpressionAttributeValues);
  const values = input.ExpressionAttributeValues && normalizeItem(input.ExpressionAttributeValues);
  const placeholders = { names, values };
  if (expressions.condition) checkConditionOperands(expressions.condition, values);
  const update = expressions.update && {
    parsed: expressions.update,
    targets: checkUpdateActions(expressions.update, placeholders, table.keyNames),
  };
  const payloadBytes = itemSize ?? itemBytes(key) + itemBytes(values);
  const returnOldOnFailure = input.ReturnValuesOnConditionCheckFailure === 'ALL_OLD';
  return {
    kind,
    table,
    id,
    key,
    keyTooLarge: tooLarge,
    item,
    payloadBytes,
    condition: expressions.condition,
    update,
    placeholders,
    returnOldOnFailure,
  };
}

/** Refuses a Put's item over DynamoDB's size or nesting limit (before its key, as Local does); returns its bytes. */
function checkItemLimits(item: Item): number {
  const bytes = itemBytes(item);
  if (bytes > MAX_ITEM_BYTES) {
    throw validationException('Item size has exceeded the maximum allowed size');
  }
  if (itemLevels(item) > MAX_NESTING_LEVELS) throw validationException(NESTING_TOO_DEEP);
  return bytes;
}

function parseExpressions(kind: WriteKind, input: WriteInput) {
  const used: UsedPlaceholders[] = [];
  const update =
    kind === 'Update' && input.UpdateExpression !== undefined
      ? parseUpdate(input.UpdateExpression)
      : undefined;
  if (update) used.push({ kind: 'UpdateExpression', ...refsOf(update) });
  const parsed =
    input.ConditionExpression === undefined ? undefined : parseCondition(input.ConditionExpression);
  if (parsed) used.push({ kind: 'ConditionExpression', ...refsOf(parsed) });
  return { used, update, condition: parsed?.root };
}

function refsOf(parsed: { nameRefs: ReadonlySet<string>; valueRefs: ReadonlySet<string> }) {
  return { nameRefs: parsed.nameRefs, valueRefs: parsed.valueRefs };
}

/**
 * Evaluates a prepared write against the item it finds (`undefined` when absent): its
 * condition, then what it leaves (`next`, `undefined` for none) — or why it cannot apply.
 *
 * @example
 * ```ts
 * const outcome = evaluateWrite(write, table.items.get(write.id));
 * ```
 */
export function evaluateWrite(write: PreparedWrite, current: Item | undefined): WriteOutcome {
  if (write.keyTooLarge) return { ok: false, code: 'ValidationError', message: KEY_TOO_LARGE };
  if (write.condition && !evaluateCondition(write.condition, current, write.placeholders)) {
    return { ok: false, code: 'ConditionalCheckFailed', message: 'The conditional request failed' };
  }
  switch (write.kind) {
    case 'Put':
      return { ok: true, next: write.item };
    case 'Delete':
      return { ok: true, next: undefined };
    case 'ConditionCheck':
      return { ok: true, next: current };
    case 'Update':
      return updated(write, current);
  }
}

function updated(write: PreparedWrite, current: Item | undefined): WriteOutcome {
  const base = current ?? write.key;
  try {
    const next = write.update
      ? applyUpdate(write.update.parsed, write.update.targets, base, write.placeholders)
      : base;
    if (itemBytes(next) > MAX_ITEM_BYTES) {
      throw new RuntimeValidationError(RuntimeValidation.UpdatedItemTooLarge);
    }
    // Only the attributes the update wrote can have grown deeper.
    const written = write.update?.targets.map((path) => String(path[0])) ?? [];
    if (itemLevels(next, written) > MAX_NESTING_LEVELS) {
      throw new RuntimeValidationError(RuntimeValidation.NestingTooDeep);
    }
    return { ok: true, next };
  } catch (error) {
    if (!(error instanceof RuntimeValidationError)) throw error;
    return { ok: false, code: 'ValidationError', message: error.message };
  }
}
