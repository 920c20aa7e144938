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
} as const;

/**
 * A write that is well formed but cannot apply to the item it finds (an arithmetic operand of
 * the wrong type, a path through a missing map, a result too large): a single-item write
 * answers it with a `ValidationException`, a transaction with a `ValidationError`
 * cancellation reason.
 *
 * @example
 * ```ts
 * throw new RuntimeValidationError(RuntimeValidation.MissingAttribute);
 * ```
 */
export class RuntimeValidationError extends Error {
  override readonly name = 'RuntimeValidationError';
}
