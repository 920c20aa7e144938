import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { itemBytes } from '../../src/testing/dynamo/itemBytes.js';
import { createTable } from './dynamoTargets.js';

/** Sort keys of partition `p` of the `sorted` table, in order (numbers by value). */
export const SORT_KEYS = [-5, 1.5, 2, 10, 100];
/** Sort keys of partition `p` of the `strings` table, in order (UTF-8 bytes). */
export const STRING_KEYS = ['B', 'a', 'a#1', 'a#2', 'b', '\uFFFF', '😀'];
/** Sort keys of partition `p` of the `bytes` table, in order (unsigned bytes). */
export const BYTE_KEYS = [[1], [1, 0], [0x7f], [0x80], [0xff]].map(
  (bytes) => new Uint8Array(bytes),
);

const QUARTER_MB = 256 * 1024;
/**
 * Item sizes of the `big` table's partitions: the 4th item passes 1 MB (`over`), reaches it
 * exactly (`exact`), stays 1 byte under it (`under`), or passes it as the last (`last`).
 */
const BIG_PARTITIONS = {
  over: [QUARTER_MB, QUARTER_MB, QUARTER_MB, QUARTER_MB + 1, QUARTER_MB],
  exact: [QUARTER_MB, QUARTER_MB, QUARTER_MB, QUARTER_MB, QUARTER_MB],
  under: [QUARTER_MB, QUARTER_MB, QUARTER_MB, QUARTER_MB - 1, QUARTER_MB],
  last: [QUARTER_MB, QUARTER_MB, QUARTER_MB, QUARTER_MB + 1],
};

type Row = Record<string, unknown>;

/** An item of `pk`/`sk` padded with `x` to exactly `bytes` as DynamoDB counts them. */
function itemOfBytes(pk: string, sk: number, bytes: number): Row {
  const base = { pk, sk, x: '' };
  return { ...base, x: 'x'.repeat(bytes - itemBytes(marshall(base))) };
}

/** The tables of the Query and Scan conformance tests, by role. */
export interface QueryTables {
  /** `pk` S, `sk` N: partition `p` (SORT_KEYS, with `n`, `m`, `l`) and partition `q` (one item). */
  readonly sorted: string;
  readonly strings: string;
  readonly bytes: string;
  /** `pk` only: items `a`, `b`, `c`. */
  readonly hashOnly: string;
  /** TTL on `expiresAt`, empty. */
  readonly ttl: string;
  /** Partitions `over`, `exact`, `under` and `last` of items sized around 1 MB (BIG_PARTITIONS). */
  readonly big: string;
  /** Only the `over` partition, for Scan. */
  readonly bigScan: string;
}

const keys = (type: 'S' | 'N' | 'B') =>
  [
    ['pk', 'S', 'HASH'],
    ['sk', type, 'RANGE'],
  ] as const;

/** Creates the tables of the Query and Scan conformance tests and writes their items. */
export async function createQueryTables(client: DynamoDBDocumentClient): Promise<QueryTables> {
  const [sorted, strings, bytes, hashOnly, ttl, big, bigScan] = await Promise.all([
    createTable(client, 'sorted', keys('N')),
    createTable(client, 'strings', keys('S')),
    createTable(client, 'bytes', keys('B')),
    createTable(client, 'hash', [['pk', 'S', 'HASH']]),
    createTable(client, 'ttl', keys('N'), 'expiresAt'),
    createTable(client, 'big', keys('N')),
    createTable(client, 'bigscan', keys('N')),
  ]);
  const put = (TableName: string, Item: Row) => client.send(new PutCommand({ TableName, Item }));
  const inP = (at: number, sk: number) => ({ pk: 'p', sk, n: at + 1, m: { x: `x${at}`, y: at } });
  await Promise.all([
    ...SORT_KEYS.map((sk, at) => put(sorted, { ...inP(at, sk), l: ['l0', 'l1', 'l2'] })),
    put(sorted, { pk: 'q', sk: 1, n: 1 }),
    ...STRING_KEYS.map((sk) => put(strings, { pk: 'p', sk })),
    ...BYTE_KEYS.map((sk) => put(bytes, { pk: 'p', sk })),
    ...['a', 'b', 'c'].map((pk) => put(hashOnly, { pk, n: 1 })),
  ]);
  // One by one: a megabyte in flight at once is more than the emulators need to take.
  for (const [pk, sizes] of Object.entries(BIG_PARTITIONS)) {
    for (const [at, size] of sizes.entries()) await put(big, itemOfBytes(pk, at + 1, size));
  }
  for (const [at, size] of BIG_PARTITIONS.over.entries()) {
    await put(bigScan, itemOfBytes('over', at + 1, size));
  }
  return { sorted, strings, bytes, hashOnly, ttl, big, bigScan };
}
