import { InvalidConfigurationError } from '../errors.js';

/**
 * Where an option of an earlier release went, by its old name, so that the error for an old
 * spelling says what to write instead (`deadLetterQueueUrl` → `deadLetter.queueUrl`).
 *
 * @example
 * ```ts
 * const moved: MovedOptions = { deadLetterQueueUrl: 'deadLetter.queueUrl' };
 * ```
 */
export type MovedOptions = Readonly<Record<string, string>>;

/**
 * Checks that `options` is an object with no key outside `known`, so that a typo (`ttlSecond`)
 * fails at creation instead of silently falling back to a default. `path` prefixes the names
 * of a group's keys (`reliability.`); a key in `moved` is named with where it went.
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
  { path = '', moved = {} }: { readonly path?: string; readonly moved?: MovedOptions } = {},
): asserts options is Record<string, unknown> {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidConfigurationError(
      path ? path.slice(0, -1) : 'options',
      options,
      `an object such as ${example}`,
    );
  }
  const unknown = Object.keys(options).find((name) => !known.includes(name));
  if (unknown === undefined) return;
  const value = (options as Record<string, unknown>)[unknown];
  const movedTo = Object.hasOwn(moved, unknown) ? moved[unknown] : undefined;
  throw new InvalidConfigurationError(
    `${path}${unknown}`,
    value,
    movedTo === undefined
      ? `one of the known options: ${known.join(', ')}`
      : `it under its new name, ${movedTo} (CHANGELOG.md lists every renamed option)`,
  );
}
