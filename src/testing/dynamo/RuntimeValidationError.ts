/**
 * DynamoDB's messages for an update that cannot apply to the item it finds.
 *
 * @example
 * ```ts
 * throw new RuntimeValidationError(RuntimeValidation.WrongType);
 * ```
 */
export const RuntimeValidation = {
  MissingAttribute:
    'The provided expression refers to an attribute that does not exist in the item',
  WrongType: 'An operand in the update expression has an incorrect data type',
  InvalidPath: 'The document path provided in the update expression is invalid for update',
  UpdatedItemTooLarge: 'Item size to update has exceeded the maximum allowed size',
  /** An update that would nest an attribute past `MAX_NESTING_LEVELS` (DynamoDB Local's words). */
  NestingTooDeep: 'Nesting Levels have exceeded supported limits',
} as const;

/**
 * A write that is well formed but cannot apply to the item it finds (an arithmetic operand of
 * the wrong type, a path through a missing map, a result too large or nested too deep): a
 * single-item write answers it with a `ValidationException`, a transaction with a
 * `ValidationError` cancellation reason. (DynamoDB Local refuses the whole transaction with a
 * `ValidationException` instead for a missing attribute and for too deep a nesting; MiniStack
 * cancels for a missing attribute, as the conformance suite shows.)
 *
 * @example
 * ```ts
 * throw new RuntimeValidationError(RuntimeValidation.MissingAttribute);
 * ```
 */
export class RuntimeValidationError extends Error {
  override readonly name = 'RuntimeValidationError';
}
