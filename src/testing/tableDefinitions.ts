import type { CreateTableInput } from '@aws-sdk/client-dynamodb';
import { InvalidConfigurationError } from '../errors/configurationErrors.js';

/**
 * A key attribute of a test table: its name, and its type (`S` unless given).
 *
 * @example
 * ```ts
 * const sortKey: TestKeyAttribute = { name: 'version', type: 'N' };
 * ```
 * @public
 */
export interface TestKeyAttribute {
  /** The attribute's name. */
  readonly name: string;
  /** `S` (string, the default), `N` (number) or `B` (binary). */
  readonly type?: 'S' | 'N' | 'B';
}

/**
 * A table to create in the in-memory DynamoDB, in one line.
 *
 * @example
 * ```ts
 * dynamo.createTable({ tableName: 'accounts', partitionKey: 'accountId' });
 * ```
 * @public
 */
export interface TestTable {
  /** The table's name, as the code under test names it. */
  readonly tableName: string;
  /** The partition (HASH) key: its name (a string attribute) or name and type. */
  readonly partitionKey: string | TestKeyAttribute;
  /** The sort (RANGE) key, if the table has one. */
  readonly sortKey?: string | TestKeyAttribute;
  /** The attribute TTL reads (epoch seconds), if TTL is on. */
  readonly timeToLiveAttribute?: string;
}

/** A `CreateTable` request for a {@link TestTable}. */
export function createTableInput(table: TestTable): CreateTableInput {
  const keys = [
    ['HASH', keyAttribute(table.partitionKey, 'partitionKey')] as const,
    ...(table.sortKey === undefined
      ? []
      : [['RANGE', keyAttribute(table.sortKey, 'sortKey')] as const]),
  ];
  return {
    TableName: table.tableName,
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: keys.map(([KeyType, key]) => ({ AttributeName: key.name, KeyType })),
    AttributeDefinitions: keys.map(([, key]) => ({
      AttributeName: key.name,
      AttributeType: key.type ?? 'S',
    })),
  };
}

function keyAttribute(key: string | TestKeyAttribute, option: string): TestKeyAttribute {
  const attribute = typeof key === 'string' ? { name: key } : key;
  if (attribute.name === '')
    throw new InvalidConfigurationError(option, key, 'a non-empty attribute name');
  if (attribute.type !== undefined && !['S', 'N', 'B'].includes(attribute.type))
    throw new InvalidConfigurationError(`${option}.type`, attribute.type, "'S', 'N' or 'B'");
  return attribute;
}
