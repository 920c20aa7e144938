/**
 * A `ClientRequestToken` of 32 hexadecimal digits from the runtime's randomness (DynamoDB takes
 * 1 to 36 characters).
 *
 * @example
 * ```ts
 * clientRequestToken(() => 0.5); // => '80000000800000008000000080000000'
 * ```
 */
export function clientRequestToken(random: () => number): string {
  return Array.from({ length: 4 }, () =>
    Math.floor(random() * 0x1_0000_0000)
      .toString(16)
      .padStart(8, '0'),
  ).join('');
}
