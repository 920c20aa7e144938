import { Precheck } from '../constants/values.js';
import { InvalidConfigurationError } from '../errors.js';

const MODES: readonly unknown[] = Object.values(Precheck);

/**
 * The `precheck` option as a {@link Precheck} mode: unset or `true` is `concurrent`, `false`
 * is `off`. Anything else is refused, naming the accepted values.
 *
 * @example
 * ```ts
 * resolvePrecheck(false); // => 'off'
 * ```
 */
export function resolvePrecheck(value: unknown): Precheck {
  if (value === undefined || value === true) return Precheck.Concurrent;
  if (value === false) return Precheck.Off;
  if (MODES.includes(value)) return value as Precheck;
  throw new InvalidConfigurationError(
    'precheck',
    value,
    `one of ${MODES.map((mode) => `'${mode}'`).join(', ')}, true or false`,
  );
}
