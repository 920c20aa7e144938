import { InvalidArgumentError } from 'commander';

/**
 * A commander parser for a number in `[min, max]` (an integer unless `integer` is false), whose
 * error names the option, the range and the value given.
 *
 * @example
 * ```ts
 * program.option('--workers <n>', 'processes per consumer', numberIn('--workers', 2, 8), 3);
 * ```
 */
export function numberIn(
  name: string,
  min: number,
  max = Number.POSITIVE_INFINITY,
  integer = true,
): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!(parsed >= min && parsed <= max) || (integer && !Number.isInteger(parsed))) {
      const range = max === Number.POSITIVE_INFINITY ? `≥ ${min}` : `in [${min}, ${max}]`;
      throw new InvalidArgumentError(
        `${name} must be ${integer ? 'an integer' : 'a number'} ${range} (given ${value}).`,
      );
    }
    return parsed;
  };
}

/**
 * A commander parser for a share in `[0, 1)`.
 *
 * @example
 * ```ts
 * program.option('--duplicates <rate>', 'share of copies', shareBelowOne('the duplicate rate'), 0.2);
 * ```
 */
export function shareBelowOne(what: string): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!(parsed >= 0 && parsed < 1))
      throw new InvalidArgumentError(`${what} must be in [0, 1) (given ${value}).`);
    return parsed;
  };
}
