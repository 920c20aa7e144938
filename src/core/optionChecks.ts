import { InvalidConfigurationError } from '../errors.js';

/**
 * An option that must be a whole number in `range`, or `fallback` when unset.
 *
 * @example
 * ```ts
 * integerIn('performance.concurrency', 0, 100, { min: 1, max: 1000 }); // throws InvalidConfigurationError
 * ```
 */
export function integerIn(
  name: string,
  value: unknown,
  fallback: number,
  range: { readonly min: number; readonly max: number },
): number {
  if (value === undefined) return fallback;
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < range.min ||
    value > range.max
  ) {
    throw new InvalidConfigurationError(
      name,
      value,
      `an integer from ${range.min} to ${range.max}`,
    );
  }
  return value;
}

/**
 * An option that must be a function when set.
 *
 * @example
 * ```ts
 * checkFunction('parser', options.parser);
 * ```
 */
export function checkFunction(name: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'function') {
    throw new InvalidConfigurationError(name, value, 'a function');
  }
}

/**
 * An option that must be `true` or `false` when set.
 *
 * @example
 * ```ts
 * checkBoolean('observability.logKeys', options.observability?.logKeys);
 * ```
 */
export function checkBoolean(name: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'boolean') {
    throw new InvalidConfigurationError(name, value, 'true or false');
  }
}

/**
 * An option that must be an object with the given methods when set (a logger, a client).
 *
 * @example
 * ```ts
 * checkMethods('observability.metrics', metrics, ['addMetric']);
 * ```
 */
export function checkMethods(name: string, value: unknown, methods: readonly string[]): void {
  if (value === undefined) return;
  const target = value as Record<string, unknown> | null;
  const missing = methods.filter((method) => typeof target?.[method] !== 'function');
  if (typeof value !== 'object' || value === null || missing.length > 0) {
    throw new InvalidConfigurationError(
      name,
      value,
      `an object with the methods ${methods.join(', ')}`,
    );
  }
}

/**
 * Whether `text` can be an SQS queue URL: an absolute http(s) URL.
 *
 * @example
 * ```ts
 * isQueueUrl('https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq'); // => true
 * ```
 */
export function isQueueUrl(text: string): boolean {
  return URL.canParse(text) && /^https?:$/.test(new URL(text).protocol);
}
