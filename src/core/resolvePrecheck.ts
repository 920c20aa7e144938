import { Precheck } from '../constants/values.js';
import { InvalidConfigurationError } from '../errors.js';

const MODES: readonly unknown[] = Object.values(Precheck);

/**
 * The `performance.precheck` option as a {@link Precheck} mode: unset is `concurrent`.
 * Anything else is refused, naming the accepted values.
 *
 * @example
 * ```ts
 * resolvePrecheck(Precheck.Off); // => 'off'
 * ```
 */
export function resolvePrecheck(value: unknown): Precheck {
  if (value === undefined) return Precheck.Concurrent;
  if (MODES.includes(value)) return value as Precheck;
  throw new InvalidConfigurationError(
    'performance.precheck',
    value,
    `one of ${MODES.map((mode) => `'${mode}'`).join(', ')} (Precheck in sqs-inbox)`,
  );
}
