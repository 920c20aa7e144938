import { InvalidConfigurationError } from '../errors.js';

/**
 * Checks that `options` is an object with no key outside `known`, so that a typo (`ttlSecond`)
 * fails at creation instead of silently falling back to a default.
 *
 * @example
 * ```ts
 * checkOptionsObject(options, ['tableName', 'client'], "{ tableName: 'inbox' }");
 * ```
 */
export function checkOptionsObject(
  options: unknown,
  known: readonly string[],
  example: string,
): asserts options is Record<string, unknown> {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidConfigurationError('options', options, `an object such as ${example}`);
  }
  const unknown = Object.keys(options).find((name) => !known.includes(name));
  if (unknown !== undefined) {
    throw new InvalidConfigurationError(
      unknown,
      (options as Record<string, unknown>)[unknown],
      `one of the known options: ${known.join(', ')}`,
    );
  }
}
