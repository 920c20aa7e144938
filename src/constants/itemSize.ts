const encoder = new TextEncoder();

/** Bytes DynamoDB counts for a string: its UTF-8 length. */
function utf8Bytes(text: string): number {
  return encoder.encode(text).byteLength;
}

/** DynamoDB stores numbers as up to 38 significant digits, two digits a byte, plus one. */
function numberBytes(text: string): number {
  const digits = text.replace(/^-/, '').replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '');
  return Math.min(21, Math.ceil(Math.max(digits.length, 1) / 2) + 1);
}

/**
 * Estimates the bytes DynamoDB counts for one attribute value given in lib-dynamodb's native
 * form, following the documented item-size rules (names and values, 3 bytes of overhead per
 * list or map and 1 per element). Used to reject a transaction before sending it.
 *
 * @example
 * ```ts
 * estimateValueBytes({ a: 'xy' }) // => 3 + 1 + 1 + 2
 * ```
 */
export function estimateValueBytes(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return utf8Bytes(value);
  if (typeof value === 'number' || typeof value === 'bigint') return numberBytes(String(value));
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof ArrayBuffer) return value.byteLength;
  if (value instanceof Set) return sumOf([...value], estimateValueBytes);
  if (Array.isArray(value)) return 3 + sumOf(value, (element) => 1 + estimateValueBytes(element));
  if (typeof value === 'object' && 'value' in value && typeof value.value === 'string') {
    return numberBytes(value.value); // lib-dynamodb NumberValue
  }
  if (typeof value === 'object') {
    return (
      3 + sumOf(Object.entries(value), ([name, v]) => utf8Bytes(name) + 1 + estimateValueBytes(v))
    );
  }
  return utf8Bytes(String(value));
}

/**
 * Estimates the bytes DynamoDB counts for an item (or a key, or a set of expression values).
 *
 * @example
 * ```ts
 * estimateItemBytes({ pk: 'a', n: 1 }) // => 2 + 1 + 2
 * ```
 */
export function estimateItemBytes(item: Record<string, unknown> | undefined): number {
  if (!item) return 0;
  return sumOf(
    Object.entries(item),
    ([name, value]) => utf8Bytes(name) + estimateValueBytes(value),
  );
}

function sumOf<T>(items: readonly T[], size: (item: T) => number): number {
  let total = 0;
  for (const item of items) total += size(item);
  return total;
}
