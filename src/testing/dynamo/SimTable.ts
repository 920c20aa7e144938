import type {
  AttributeDefinition,
  AttributeValue,
  CreateTableInput,
  KeySchemaElement,
  TableDescription,
} from '@aws-sdk/client-dynamodb';
import { checkParameters } from './checkParameters.js';
import { contentOf, type Item } from './compareValues.js';
import { validationException } from './dynamoExceptions.js';

/**
 * A key attribute of a table: its name and scalar type.
 *
 * @example
 * ```ts
 * const hash: KeyAttribute = { name: 'pk', type: 'S' };
 * ```
 */
export interface KeyAttribute {
  readonly name: string;
  readonly type: 'S' | 'N' | 'B';
}

/**
 * An item's place in its table: a canonical id and the key attributes in wire form.
 *
 * @example
 * ```ts
 * const { id, key }: ItemKey = table.keyOfKey({ pk: { S: 'a' } });
 * ```
 */
export interface ItemKey {
  readonly id: string;
  readonly key: Item;
}

const INVALID = 'One or more parameter values were invalid';
const NOT_THE_SCHEMA = 'The provided key element does not match the schema';

/**
 * One simulated table: its key schema, its items by canonical key, its TTL attribute.
 * Validates keys with DynamoDB's wording (the wording `isKeySchemaMismatch` recognises).
 *
 * @example
 * ```ts
 * const table = SimTable.create({ TableName: 'inbox', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }] });
 * ```
 */
export class SimTable {
  readonly items = new Map<string, Item>();
  readonly keyNames: ReadonlySet<string>;
  /** The TTL attribute while TTL is enabled. */
  ttlAttribute: string | undefined;

  private constructor(
    readonly name: string,
    readonly keys: readonly KeyAttribute[],
    readonly description: TableDescription,
  ) {
    this.keyNames = new Set(keys.map((key) => key.name));
  }

  /** A table from a `CreateTable` request, after checking its key schema. */
  static create(input: CreateTableInput): SimTable {
    checkParameters('CreateTable', input, [
      'TableName',
      'KeySchema',
      'AttributeDefinitions',
      'BillingMode',
      'ProvisionedThroughput',
    ]);
    const name = input.TableName ?? '';
    const keys = keyAttributes(input.KeySchema ?? [], input.AttributeDefinitions ?? []);
    return new SimTable(name, keys, {
      TableName: name,
      TableArn: `arn:aws:dynamodb:us-east-1:000000000000:table/${name}`,
      TableStatus: 'ACTIVE',
      KeySchema: keys.map((key, at) => ({
        AttributeName: key.name,
        KeyType: at === 0 ? 'HASH' : 'RANGE',
      })),
      AttributeDefinitions: keys.map((key) => ({
        AttributeName: key.name,
        AttributeType: key.type,
      })),
      ...(input.BillingMode === undefined
        ? {}
        : { BillingModeSummary: { BillingMode: input.BillingMode } }),
    });
  }

  /** The place of the item a `Key` parameter names: exactly the key attributes, of their types. */
  keyOfKey(key: Item): ItemKey {
    if (Object.keys(key).length !== this.keys.length) throw validationException(NOT_THE_SCHEMA);
    return this.#locate(key, (attribute, value) => {
      if (value === undefined || value[attribute.type] === undefined) {
        throw validationException(NOT_THE_SCHEMA);
      }
    });
  }

  /** The place of a `Put` item: it must hold every key attribute, of its type. */
  keyOfItem(item: Item): ItemKey {
    return this.#locate(item, (attribute, value) => {
      if (value === undefined)
        throw validationException(`${INVALID}: Missing the key ${attribute.name} in the item`);
      const actual = Object.keys(value)[0];
      if (value[attribute.type] === undefined) {
        throw validationException(
          `${INVALID}: Type mismatch for key ${attribute.name} expected: ${attribute.type} actual: ${actual}`,
        );
      }
    });
  }

  #locate(
    item: Item,
    check: (attribute: KeyAttribute, value: AttributeValue | undefined) => void,
  ): ItemKey {
    const key: Item = {};
    const parts: string[] = [];
    for (const attribute of this.keys) {
      const value = item[attribute.name];
      check(attribute, value);
      const scalar = contentOf(value as AttributeValue, attribute.type);
      if (scalar === '' || (scalar instanceof Uint8Array && scalar.length === 0)) {
        throw validationException(
          `One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty ${attribute.type === 'B' ? 'binary' : 'string'} value. Key: ${attribute.name}`,
        );
      }
      key[attribute.name] = value as AttributeValue;
      parts.push(
        scalar instanceof Uint8Array ? Buffer.from(scalar).toString('base64') : String(scalar),
      );
    }
    return { id: parts.join('\u0000'), key: Object.freeze(key) };
  }
}

function keyAttributes(
  schema: readonly KeySchemaElement[],
  definitions: readonly AttributeDefinition[],
): KeyAttribute[] {
  const [hash, range, ...more] = schema;
  if (hash?.KeyType !== 'HASH') {
    throw validationException(
      'Invalid KeySchema: The first KeySchemaElement is not a HASH key type',
    );
  }
  if (more.length > 0 || (range !== undefined && range.KeyType !== 'RANGE')) {
    throw validationException(
      'Invalid KeySchema: The second KeySchemaElement is not a RANGE key type',
    );
  }
  const elements = range === undefined ? [hash] : [hash, range];
  const keys = elements.map((element) => {
    const type = definitions.find((d) => d.AttributeName === element.AttributeName)?.AttributeType;
    if (type === undefined) {
      throw validationException(
        `${INVALID}: Some index key attributes are not defined in AttributeDefinitions. ` +
          `Keys: [${elements.map((e) => e.AttributeName).join(', ')}], AttributeDefinitions: [${definitions.map((d) => d.AttributeName).join(', ')}]`,
      );
    }
    return { name: element.AttributeName ?? '', type };
  });
  if (definitions.length !== keys.length) {
    throw validationException(
      `${INVALID}: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions`,
    );
  }
  return keys;
}

const TABLE_ARN = /^arn:aws[\w-]*:dynamodb:[^:]*:\d*:table\/(.+)$/;

/**
 * A table's name, whether given as a name or as an ARN (`…:table/<name>`).
 *
 * @example
 * ```ts
 * tableNameOf('arn:aws:dynamodb:eu-west-1:123456789012:table/inbox') // => 'inbox'
 * ```
 */
export function tableNameOf(nameOrArn: string): string {
  return TABLE_ARN.exec(nameOrArn)?.[1] ?? nameOrArn;
}
