import { NotModelledError } from '../NotModelledError.js';
/**
 * Refuses request parameters the simulator does not model (a projection, legacy `Expected`,
 * a `ClientRequestToken`…) with a plain `Error` naming them, rather than ignoring them and
 * answering something DynamoDB would not. Parameters given as `undefined` count as absent.
 *
 * @example
 * ```ts
 * checkParameters('GetItem', input, ['TableName', 'Key', 'ConsistentRead']);
 * ```
 */
export function checkParameters(
  operation: string,
  input: object,
  modelled: readonly string[],
): void {
  const unmodelled: string[] = [];
  for (const name in input) {
    const value = (input as Record<string, unknown>)[name];
    if (value !== undefined && !modelled.includes(name)) unmodelled.push(name);
  }
  if (unmodelled.length === 0) return;
  throw new NotModelledError(operation, unmodelled.join(', '), modelled);
}

/**
 * Parameters every item operation may carry and the simulator ignores (no capacity model).
 *
 * @example
 * ```ts
 * checkParameters('GetItem', input, ['TableName', 'Key', ...IGNORED_PARAMETERS]);
 * ```
 */
export const IGNORED_PARAMETERS = [
  'ReturnConsumedCapacity',
  'ReturnItemCollectionMetrics',
] as const;
