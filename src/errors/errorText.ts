/**
 * Renders a value for an error message: short, typed, never `[object Object]`.
 *
 * @example
 * ```ts
 * describe('') // => 'an empty string'
 * ```
 */
export function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (value === '') return 'an empty string';
  if (typeof value === 'function') return 'a function';
  let text: string;
  try {
    text =
      typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = safeString(value);
  }
  const shown = text.length > 120 ? `${text.slice(0, 117)}...` : text;
  return `${shown} (${Array.isArray(value) ? 'array' : typeof value})`;
}

/**
 * The message of an unknown thrown value.
 *
 * @example
 * ```ts
 * errorMessage(new Error('boom')) // => 'boom'
 * ```
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : safeString(error);
}

/** `String(value)`, or a description of its type when converting throws (no prototype, a throwing `toString`). */
function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return `[${typeof value} that cannot be converted to a string]`;
  }
}

/**
 * A value's type for an error message, without its content: `a string of 12 characters`.
 *
 * @example
 * ```ts
 * describeType({ a: 1 }) // => 'an object'
 * ```
 */
export function describeType(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (typeof value === 'string')
    return value === '' ? 'an empty string' : `a string of ${value.length} characters`;
  if (Array.isArray(value)) return `an array of ${value.length} elements`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * A dedup key's type for an error message: `a string of 1100 bytes`, never its text.
 *
 * @example
 * ```ts
 * describeKeyType('é'.repeat(513)) // => 'a string of 1026 bytes'
 * ```
 */
export function describeKeyType(value: unknown): string {
  if (typeof value !== 'string' || value === '') return describeType(value);
  return `a string of ${Buffer.byteLength(value)} bytes`;
}

/**
 * A thrown value's name for an error message: its class, or `a thrown <type>`.
 *
 * @example
 * ```ts
 * errorName(new TypeError('x')) // => 'TypeError'
 * ```
 */
export function errorName(error: unknown): string {
  return error instanceof Error ? error.name : `a thrown ${typeof error}`;
}

/**
 * A thrown value's name as a record keeps it (an entry's `lastError`, a metric's or a span's
 * error type): its class, or `NonErrorThrown` for a value that is no Error, whose content may
 * be data.
 *
 * @example
 * ```ts
 * recordedErrorName({ statusCode: 500 }) // => 'NonErrorThrown'
 * ```
 */
export function recordedErrorName(error: unknown): string {
  return error instanceof Error ? error.name : 'NonErrorThrown';
}

/**
 * A thrown value's type in a reason the operator reads: its class, or its JavaScript type
 * (`string`, `object`) for a value that is no Error.
 *
 * @example
 * ```ts
 * errorTypeName('timeout') // => 'string'
 * ```
 */
export function errorTypeName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

/**
 * Keeps a field readable but off `Object.keys`, so loggers that print every field skip it.
 *
 * @example
 * ```ts
 * hideField(this, 'issues');
 * ```
 */
export function hideField(target: object, field: string): void {
  Object.defineProperty(target, field, { enumerable: false });
}

/**
 * The position `JSON.parse` reports (`… at position 12`), without the text it quotes.
 *
 * @example
 * ```ts
 * jsonErrorPosition(new SyntaxError('Unexpected token } in JSON at position 12')) // => 12
 * ```
 */
export function jsonErrorPosition(error: unknown): number | undefined {
  const match = error instanceof Error ? /at position (\d+)/.exec(error.message) : null;
  return match?.[1] === undefined ? undefined : Number(match[1]);
}
