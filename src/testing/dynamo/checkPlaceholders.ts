import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { validationException } from './dynamoExceptions.js';
import type { ExpressionKind } from './TokenStream.js';

/**
 * A parsed expression of a request, with the placeholders it uses.
 *
 * @example
 * ```ts
 * const used: UsedPlaceholders = { kind: 'ConditionExpression', nameRefs: new Set(['#a']), valueRefs: new Set([':v']) };
 * ```
 */
export interface UsedPlaceholders {
  readonly kind: ExpressionKind;
  readonly nameRefs: ReadonlySet<string>;
  readonly valueRefs: ReadonlySet<string>;
}

/**
 * Checks a request's `ExpressionAttributeNames` and `ExpressionAttributeValues` against the
 * expressions that use them, as DynamoDB does: not empty, only given with an expression, every
 * placeholder used is defined and every one defined is used. Throws a `ValidationException`.
 *
 * @example
 * ```ts
 * checkPlaceholders([parseCondition('#a = :v')], { '#a': 'a' }, { ':v': { S: 'x' } });
 * ```
 */
export function checkPlaceholders(
  expressions: readonly UsedPlaceholders[],
  names: Readonly<Record<string, string>> | undefined,
  values: Readonly<Record<string, AttributeValue>> | undefined,
): void {
  checkGiven('ExpressionAttributeNames', names, expressions);
  checkGiven('ExpressionAttributeValues', values, expressions);
  for (const expression of expressions) checkDefined(expression, names, values);
  checkUsed('ExpressionAttributeNames', names, expressions, (expression) => expression.nameRefs);
  checkUsed('ExpressionAttributeValues', values, expressions, (expression) => expression.valueRefs);
}

function checkGiven(
  parameter: string,
  given: object | undefined,
  expressions: readonly UsedPlaceholders[],
): void {
  if (given === undefined) return;
  if (Object.keys(given).length === 0) throw validationException(`${parameter} must not be empty`);
  if (expressions.length === 0) {
    throw validationException(`${parameter} can only be specified when using expressions`);
  }
}

function checkDefined(
  expression: UsedPlaceholders,
  names: Readonly<Record<string, string>> | undefined,
  values: Readonly<Record<string, AttributeValue>> | undefined,
): void {
  const invalid = (detail: string) => validationException(`Invalid ${expression.kind}: ${detail}`);
  for (const ref of expression.nameRefs) {
    if (names?.[ref] === undefined) {
      throw invalid(
        `An expression attribute name used in the document path is not defined; attribute name: ${ref}`,
      );
    }
  }
  for (const ref of expression.valueRefs) {
    if (values?.[ref] === undefined) {
      throw invalid(
        `An expression attribute value used in expression is not defined; attribute value: ${ref}`,
      );
    }
  }
}

function checkUsed(
  parameter: string,
  given: object | undefined,
  expressions: readonly UsedPlaceholders[],
  refsOf: (expression: UsedPlaceholders) => ReadonlySet<string>,
): void {
  if (given === undefined) return;
  const unused = Object.keys(given).filter((ref) => !expressions.some((e) => refsOf(e).has(ref)));
  if (unused.length === 0) return;
  throw validationException(
    `Value provided in ${parameter} unused in expressions: keys: {${unused.join(', ')}}`,
  );
}
