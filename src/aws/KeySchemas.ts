import { DescribeTableCommand, type KeySchemaElement } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TransientStoreError } from '../errors.js';
import { translate } from './dynamoDBErrors.js';

/**
 * The key attribute names of the tables a store's commits write (partition key first), read
 * with `DescribeTable` once per table and container. A read that failed is tried again next
 * time; a table AWS refused to describe (a role without `dynamodb:DescribeTable`) is remembered,
 * so that {@link KeySchemas.namesIfReadable} does not ask again on every commit.
 *
 * @example
 * ```ts
 * const schemas = new KeySchemas(() => client);
 * await schemas.names('orders'); // => ['orderId']
 * ```
 */
export class KeySchemas {
  readonly #client: () => DynamoDBDocumentClient;
  readonly #names = new Map<string, Promise<readonly string[]>>();
  readonly #refused = new Set<string>();

  constructor(client: () => DynamoDBDocumentClient) {
    this.#client = client;
  }

  /** The table's key attribute names; throws the store's error when they cannot be read. */
  names(tableName: string): Promise<readonly string[]> {
    let names = this.#names.get(tableName);
    if (names === undefined) {
      names = this.#describe(tableName);
      this.#names.set(tableName, names);
      names.catch(() => this.#names.delete(tableName));
    }
    return names;
  }

  /** The names, or undefined when they cannot be read now (and never again once refused). */
  async namesIfReadable(tableName: string): Promise<readonly string[] | undefined> {
    if (this.#refused.has(tableName)) return undefined;
    try {
      return await this.names(tableName);
    } catch (error) {
      if (!(error instanceof TransientStoreError)) this.#refused.add(tableName);
      return undefined;
    }
  }

  async #describe(tableName: string): Promise<readonly string[]> {
    const table = await this.#client()
      .send(new DescribeTableCommand({ TableName: tableName }))
      .then(
        (output) => output.Table,
        (error: unknown) => {
          throw translate(error);
        },
      );
    const rank = (element: KeySchemaElement) => (element.KeyType === 'HASH' ? 0 : 1);
    const ordered = [...(table?.KeySchema ?? [])].sort((a, b) => rank(a) - rank(b));
    return ordered.map((element) => element.AttributeName ?? '');
  }
}
