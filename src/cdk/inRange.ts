import { Token } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

import { InboxValidationError } from './InboxValidationError.js';
/**
 * Throws, naming the construct, the property, the range and the value given (and `why`, when
 * the range is narrower than AWS's), unless `value` is a whole number from `min` to `max`. A
 * token, resolved at deploy time, passes.
 *
 * @example
 * ```ts
 * inRange(this, 'batchSize', props.batchSize ?? 10, 1, 10);
 * ```
 */
export function inRange(
  scope: IConstruct,
  prop: string,
  value: number,
  min: number,
  max: number,
  why?: string,
): void {
  if (Token.isUnresolved(value)) return;
  if (Number.isInteger(value) && value >= min && value <= max) return;
  throw new InboxValidationError(
    scope,
    `${prop} must be an integer from ${min} to ${max} inclusive (given ${value})${why ? `: ${why}` : '.'}`,
  );
}
