import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Item } from './compareValues.js';
import { significantDigits } from './normalizeNumber.js';

/**
 * DynamoDB's item size limit, 400 KB.
 *
 * @example
 * ```ts
 * if (itemBytes(item) > MAX_ITEM_BYTES) throw validationException('Item size has exceeded the maximum allowed size');
 * ```
 */
export const MAX_ITEM_BYTES = 400 * 1024;
/**
 * DynamoDB's transaction payload limit, 4 MB.
 *
 * @example
 * ```ts
 * if (payloadBytes > MAX_TRANSACTION_BYTES) throw validationException('Transaction payload size cannot exceed 4MB');
 * ```
 */
export const MAX_TRANSACTION_BYTES = 4 * 1024 * 1024;

/**
 * The bytes DynamoDB counts for a wire value: UTF-8 for strings, one byte per two significant
 * digits plus one for numbers (1 for zero), 1 for BOOL and NULL, 3 plus one per element for lists and maps
 * (map keys counted too). Checked at the 400 KB boundary against DynamoDB Local and MiniStack.
 *
 * @example
 * ```ts
 * valueBytes({ M: { k: { S: 'xy' } } }) // => 3 + 1 + 1 + 2
 * ```
 */
export function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S, 'utf8');
  if (value.N !== undefined) return numberBytes(value.N);
  if (value.B !== undefined) return value.B.byteLength;
  if (value.SS !== undefined) return sum(value.SS, (s) => Buffer.byteLength(s, 'utf8'));
  if (value.NS !== undefined) return sum(value.NS, numberBytes);
  if (value.BS !== undefined) return sum(value.BS, (b) => b.byteLength);
  if (value.L !== undefined) return 3 + sum(value.L, (element) => 1 + valueBytes(element));
  if (value.M !== undefined)
    return 3 + sum(Object.entries(value.M), ([name, v]) => 1 + attributeBytes(name, v));
  return 1;
}

/**
 * The bytes DynamoDB counts for an item (or a key, or expression values): names and values.
 *
 * @example
 * ```ts
 * itemBytes({ pk: { S: 'a' } }) // => 3
 * ```
 */
export function itemBytes(item: Item | undefined): number {
  return item === undefined ? 0 : sum(Object.entries(item), ([name, v]) => attributeBytes(name, v));
}

function attributeBytes(name: string, value: AttributeValue): number {
  return Buffer.byteLength(name, 'utf8') + valueBytes(value);
}

/** Zero has no significant digit: 1 byte (checked at 400 KB against DynamoDB Local and MiniStack). */
function numberBytes(normalized: string): number {
  if (normalized === '0') return 1;
  return Math.ceil(significantDigits(normalized) / 2) + 1;
}

function sum<T>(values: readonly T[], size: (value: T) => number): number {
  let total = 0;
  for (const value of values) total += size(value);
  return total;
}
