import type {
  DescribeTimeToLiveOutput,
  UpdateTimeToLiveInput,
  UpdateTimeToLiveOutput,
} from '@aws-sdk/client-dynamodb';
import type { Item } from './compareValues.js';
import type { Database } from './Database.js';
import { validationException } from './dynamoExceptions.js';
import { normalizeItem } from './normalizeItem.js';
import type { SimTable } from './SimTable.js';

/** DynamoDB's TTL ignores expiry times more than five years in the past. */
const FIVE_YEARS_SECONDS = 5 * 365 * 24 * 60 * 60;

/**
 * `UpdateTimeToLive`, with DynamoDB Local's refusals: enabling twice, enabling another
 * attribute while one is enabled, disabling twice.
 *
 * @example
 * ```ts
 * updateTimeToLive(table, { TableName: 'inbox', TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true } });
 * ```
 */
export function updateTimeToLive(
  table: SimTable,
  input: UpdateTimeToLiveInput,
): UpdateTimeToLiveOutput {
  const { AttributeName, Enabled } = input.TimeToLiveSpecification ?? {};
  if (AttributeName === undefined || Enabled === undefined) {
    throw validationException('TimeToLiveSpecification needs AttributeName and Enabled');
  }
  const current = table.ttlAttribute;
  if (current !== undefined && current !== AttributeName) {
    throw validationException('TimeToLive is active on a different AttributeName');
  }
  if (Enabled === (current !== undefined)) {
    throw validationException(`TimeToLive is already ${Enabled ? 'enabled' : 'disabled'}`);
  }
  table.ttlAttribute = Enabled ? AttributeName : undefined;
  return { TimeToLiveSpecification: { AttributeName, Enabled } };
}

/**
 * `DescribeTimeToLive`: `ENABLED` with its attribute, or `DISABLED` (TTL changes apply at once).
 *
 * @example
 * ```ts
 * describeTimeToLive(table) // => { TimeToLiveDescription: { TimeToLiveStatus: 'ENABLED', AttributeName: 'expiresAt' } }
 * ```
 */
export function describeTimeToLive(table: SimTable): DescribeTimeToLiveOutput {
  const name = table.ttlAttribute;
  return {
    TimeToLiveDescription:
      name === undefined
        ? { TimeToLiveStatus: 'DISABLED' }
        : { TimeToLiveStatus: 'ENABLED', AttributeName: name },
  };
}

function isExpired(table: SimTable, item: Item, nowEpochSeconds: number): boolean {
  const text = table.ttlAttribute === undefined ? undefined : item[table.ttlAttribute]?.N;
  if (text === undefined) return false;
  const expiresAtEpochSeconds = Number(text);
  return (
    expiresAtEpochSeconds < nowEpochSeconds &&
    expiresAtEpochSeconds > nowEpochSeconds - FIVE_YEARS_SECONDS
  );
}

/**
 * The items TTL may delete at `nowEpochSeconds`: TTL enabled, the TTL attribute a number of
 * epoch seconds before now (and not more than five years before, which DynamoDB ignores).
 * They stay readable until {@link deleteExpired} removes them.
 *
 * @example
 * ```ts
 * expiredItems(table, 1_700_000_000) // => [{ pk: …, expiresAt: { N: '1699999999' } }]
 * ```
 */
export function expiredItems(table: SimTable, nowEpochSeconds: number): readonly Item[] {
  return [...table.items.values()].filter((item) => isExpired(table, item, nowEpochSeconds));
}

/**
 * Deletes an item as TTL does (the change is logged with cause `ttl`); `keyOrItem` may be the
 * item itself. With `nowEpochSeconds` it deletes only an item still expired then, as TTL
 * re-checks before deleting. Returns whether it deleted.
 *
 * @example
 * ```ts
 * for (const item of expiredItems(table, now)) deleteExpired(db, table, item, now);
 * ```
 */
export function deleteExpired(
  db: Database,
  table: SimTable,
  keyOrItem: Item,
  nowEpochSeconds?: number,
): boolean {
  const key = Object.fromEntries([...table.keyNames].map((name) => [name, keyOrItem[name]]));
  const { id, key: normalizedKey } = table.keyOfKey(normalizeItem(key as Item));
  const item = table.items.get(id);
  if (item === undefined) return false;
  if (nowEpochSeconds !== undefined && !isExpired(table, item, nowEpochSeconds)) return false;
  db.write(table, id, normalizedKey, undefined, 'ttl');
  return true;
}
