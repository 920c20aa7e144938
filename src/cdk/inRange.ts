import { Token } from 'aws-cdk-lib';

/**
 * Throws, naming the construct, the property, the range and the value given (and `why`, when
 * the range is narrower than AWS's), unless `value` is a whole number from `min` to `max`. A
 * token, resolved at deploy time, passes.
 *
 * @example
 * ```ts
 * inRange('OutboxPipe ledger', 'batchSize', props.batchSize ?? 10, 1, 10);
 * ```
 */
export function inRange(
  where: string,
  prop: string,
  value: number,
  min: number,
  max: number,
  why?: string,
): void {
  if (Token.isUnresolved(value)) return;
  if (Number.isInteger(value) && value >= min && value <= max) return;
  throw new Error(
    `${where}: ${prop} must be an integer from ${min} to ${max} inclusive (given ${value})${why ? `: ${why}` : '.'}`,
  );
}
