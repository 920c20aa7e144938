/**
 * The format version a stored item's `formatVersion` attribute gives: absent, version 1 (0.1.0
 * wrote items without one); a whole number from 1, that version (as a document client with
 * `wrapNumbers` gives it, too); anything else, undefined: no version sqs-inbox writes. Whether
 * this release reads it is the caller's test against `FORMAT_VERSIONS`.
 *
 * @example
 * ```ts
 * formatVersionOf(undefined); // 1
 * formatVersionOf(2); // 2
 * formatVersionOf('2'); // undefined
 * ```
 */
export function formatVersionOf(value: unknown): number | undefined {
  if (value === undefined) return 1;
  const wrapped = typeof value === 'object' && value !== null && 'value' in value;
  const version = wrapped ? Number(value.value) : value;
  return typeof version === 'number' && Number.isSafeInteger(version) && version >= 1
    ? version
    : undefined;
}
