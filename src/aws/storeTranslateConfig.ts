import type { TranslateConfig } from '@aws-sdk/lib-dynamodb';

/**
 * How the inbox store's own document client translates native values (the one it builds, or
 * wraps a given `DynamoDBClient` in): an `undefined` inside a map, list or set is left out, as a
 * top-level one always is, instead of failing the request. A new object each call: lib-dynamodb
 * writes its own defaults into the options it is given.
 *
 * @example
 * ```ts
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}), storeTranslateConfig());
 * ```
 */
export function storeTranslateConfig(): TranslateConfig {
  return { marshallOptions: { removeUndefinedValues: true } };
}
