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
import { valueBytes } from './itemBytes.js';

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
 * An item's place in its table: a canonical id, the key attributes in wire form, and whether a
 * key value is over its size limit (only ever true when the caller asked to be told, not refused).
 *
 * @example
 * ```ts
 * const { id, key }: ItemKey = table.keyOfKey({ pk: { S: 'a' } });
 * ```
 */
export interface ItemKey {
  readonly id: string;
  readonly key: Item;
  readonly tooLarge: boolean;
}

/**
 * What to do with a key value over DynamoDB's limit: refuse the request at once (a single-item
 * operation), or report it in {@link ItemKey.tooLarge} (a transaction, which cancels with a
 * `ValidationError` reason for that item).
 *
 * @example
 * ```ts
 * table.keyOfItem(item, 'report').tooLarge
 * ```
 */
export type OversizedKey = 'refuse' | 'report';

/**
 * DynamoDB Local's refusal of a partition key value over 2,048 bytes or a sort key value over
 * 1,024 bytes (DynamoDB's documented limits).
 *
 * @example
 * ```ts
 * throw validationException(KEY_TOO_LARGE);
 * ```
 */
export const KEY_TOO_LARGE =
  'Hash primary key values must be under 2048 bytes, and range primary key values must be under 1024 bytes';
/**
 * The largest key values DynamoDB takes, in bytes (UTF-8 for a string).
 *
 * @example
 * ```ts
 * valueBytes(sortValue) > MAX_KEY_BYTES.sort // refused
 * ```
 */
export const MAX_KEY_BYTES = { partition: 2048, sort: 1024 } as const;
const KEY_LIMITS = [MAX_KEY_BYTES.partition, MAX_KEY_BYTES.sort] as const;
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

  /**
   * The place of the item a `Key` parameter names: exactly the key attributes, of their types,
   * none empty, none over its size limit (refused, or reported as `oversized` says).
   */
  keyOfKey(key: Item, oversized: OversizedKey = 'refuse'): ItemKey {
    if (Object.keys(key).length !== this.keys.length) throw validationException(NOT_THE_SCHEMA);
    return this.#locate(key, oversized, (attribute, value) => {
      if (value === undefined || value[attribute.type] === undefined) {
        throw validationException(NOT_THE_SCHEMA);
      }
    });
  }

  /** The place of a `Put` item: it must hold every key attribute, of its type (as `keyOfKey`). */
  keyOfItem(item: Item, oversized: OversizedKey = 'refuse'): ItemKey {
    return this.#locate(item, oversized, (attribute, value) => {
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

  /** Checks each key attribute in schema order, as DynamoDB Local does: present and typed, not empty, not too large. */
  #locate(
    item: Item,
    oversized: OversizedKey,
    check: (attribute: KeyAttribute, value: AttributeValue | undefined) => void,
  ): ItemKey {
    const key: Item = {};
    const parts: string[] = [];
    let tooLarge = false;
    for (const [at, attribute] of this.keys.entries()) {
      const value = item[attribute.name];
      check(attribute, value);
      const scalar = contentOf(value as AttributeValue, attribute.type);
      if (scalar === '' || (scalar instanceof Uint8Array && scalar.length === 0)) {
        throw validationException(
          `One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty ${attribute.type === 'B' ? 'binary' : 'string'} value. Key: ${attribute.name}`,
        );
      }
      if (valueBytes(value as AttributeValue) > (KEY_LIMITS[at] ?? 0)) {
        if (oversized === 'refuse') throw validationException(KEY_TOO_LARGE);
        tooLarge = true;
      }
      key[attribute.name] = value as AttributeValue;
      parts.push(
        scalar instanceof Uint8Array ? Buffer.from(scalar).toString('base64') : String(scalar),
      );
    }
    return { id: parts.join('\u0000'), key: Object.freeze(key), tooLarge };
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
