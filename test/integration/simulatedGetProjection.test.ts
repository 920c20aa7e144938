/**
 * GetItem's and BatchGetItem's `ProjectionExpression` on several DynamoDBs: the project's
 * emulator (MiniStack under `integration`, DynamoDB Local under `conformance`) and the model of
 * src/testing/dynamo through both its clients, with the same assertions on each. DynamoDB Local
 * is the reference: a case MiniStack gets wrong is marked "known-different on MiniStack" and
 * expected to fail there (so it tells when MiniStack is fixed).
 */
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caught, createTable, deleteTables, dynamoTargets } from '../support/dynamoTargets.js';

type Row = Record<string, unknown>;

const ITEM = { pk: 'p', n: 1, m: { x: 'x1', y: 2 }, l: ['l0', 'l1', 'l2'], s: 'text' };
const OTHER = { pk: 'q', n: 2, m: { x: 'x2', y: 3 }, l: ['q0'], s: 'more' };

/** A projection DynamoDB refuses, and the key part of its message. */
interface ProjectionRefusal {
  readonly refusal: string;
  readonly projection: { ProjectionExpression?: string; ExpressionAttributeNames?: Row };
  readonly message: RegExp;
  /** What MiniStack does instead, by operation, where it differs from DynamoDB Local. */
  readonly miniStack?: { readonly GetItem?: string; readonly BatchGetItem?: string };
}

const OPERATIONS = ['GetItem', 'BatchGetItem'] as const;
type Operation = (typeof OPERATIONS)[number];

const REFUSALS: readonly ProjectionRefusal[] = [
  {
    refusal: 'an undefined name',
    projection: { ProjectionExpression: '#z', ExpressionAttributeNames: { '#m': 'm' } },
    message:
      /Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #z/,
    miniStack: { GetItem: 'says #m is unused', BatchGetItem: 'answers' },
  },
  {
    refusal: 'an unused name',
    projection: { ProjectionExpression: 'n', ExpressionAttributeNames: { '#z': 'z' } },
    message: /Value provided in ExpressionAttributeNames unused in expressions: keys: \{#z\}/,
    miniStack: { BatchGetItem: 'answers' },
  },
  {
    refusal: 'names without a projection',
    projection: { ExpressionAttributeNames: { '#z': 'z' } },
    message: /ExpressionAttributeNames can only be specified when using expressions/,
    miniStack: { BatchGetItem: 'answers' },
  },
  {
    refusal: 'overlapping paths',
    projection: { ProjectionExpression: 'm, m.x' },
    message: /Invalid ProjectionExpression: Two document paths overlap with each other/,
  },
  {
    refusal: 'a syntax error',
    projection: { ProjectionExpression: 'n,' },
    message: /Invalid ProjectionExpression: Syntax error; token: "<EOF>", near: ","/,
    miniStack: { GetItem: 'answers', BatchGetItem: 'answers' },
  },
  {
    refusal: 'a reserved word',
    projection: { ProjectionExpression: 'name' },
    message:
      /Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: name/,
    miniStack: { BatchGetItem: 'answers InternalError' },
  },
  {
    refusal: 'a path into a key',
    projection: { ProjectionExpression: 'pk.x' },
    message: /Key attributes must be scalars/,
    miniStack: { GetItem: 'answers', BatchGetItem: 'answers' },
  },
];

describe.each(dynamoTargets())('GetItem and BatchGetItem projections on $name', (target) => {
  /** A test DynamoDB Local passes and MiniStack fails: expected to fail on MiniStack. */
  const knownDifferentOnMiniStack = target.name.startsWith('MiniStack') ? it.fails : it;
  let client: DynamoDBDocumentClient;
  let close: () => void;
  let table = '';

  const get = (input: Row) =>
    client.send(new GetCommand({ TableName: table, Key: { pk: 'p' }, ...input }));
  const batchGet = (input: Row, Keys: Row[] = [{ pk: 'p' }, { pk: 'q' }]) =>
    client.send(new BatchGetCommand({ RequestItems: { [table]: { Keys, ...input } } }));
  const byPk = (items: Row[] | undefined) =>
    [...(items ?? [])].sort((a, b) => String(a.pk).localeCompare(String(b.pk)));

  beforeAll(async () => {
    ({ client, close } = target.connect());
    table = await createTable(client, 'projections', [['pk', 'S', 'HASH']]);
    for (const Item of [ITEM, OTHER]) await client.send(new PutCommand({ TableName: table, Item }));
  });
  afterAll(async () => {
    await deleteTables(client, [table]);
    close();
  });

  it('projects top-level and nested paths of GetItem; list elements close up; absent paths add nothing', async () => {
    const { Item } = await get({
      ProjectionExpression: 'n, #m.x, l[2], l[0], l[7], nope, m.nope',
      ExpressionAttributeNames: { '#m': 'm' },
    });
    expect(Item).toEqual({ n: 1, m: { x: 'x1' }, l: ['l0', 'l2'] });
  });

  it('answers a present item none of whose projected paths it has with an empty Item, and an absent one with none', async () => {
    expect((await get({ ProjectionExpression: 'nope' })).Item).toEqual({});
    expect(await get({ Key: { pk: 'absent' }, ProjectionExpression: 'n' })).not.toHaveProperty(
      'Item',
    );
  });

  it('projects each item of a BatchGetItem, with or without its key', async () => {
    const withKey = await batchGet({
      ProjectionExpression: 'pk, #s',
      ExpressionAttributeNames: { '#s': 's' },
    });
    expect(byPk(withKey.Responses?.[table])).toEqual([
      { pk: 'p', s: 'text' },
      { pk: 'q', s: 'more' },
    ]);
    const withoutKey = (await batchGet({ ProjectionExpression: 'm.y' })).Responses?.[table];
    expect(withoutKey).toHaveLength(2);
    expect(withoutKey).toEqual(expect.arrayContaining([{ m: { y: 2 } }, { m: { y: 3 } }]));
  });

  const refusedBy = (operation: Operation) => async (refusal: ProjectionRefusal) => {
    const sent = operation === 'GetItem' ? get(refusal.projection) : batchGet(refusal.projection);
    const error = await caught(sent);
    expect(error.name).toBe('ValidationException');
    expect(error.message).toMatch(refusal.message);
  };

  for (const operation of OPERATIONS) {
    const differs = (refusal: ProjectionRefusal) => refusal.miniStack?.[operation] !== undefined;
    it.each(REFUSALS.filter((refusal) => !differs(refusal)))(
      `refuses in a ${operation} projection $refusal`,
      refusedBy(operation),
    );
    knownDifferentOnMiniStack.each(
      REFUSALS.filter(differs).map((refusal) => ({
        ...refusal,
        instead: refusal.miniStack?.[operation],
      })),
    )(
      `refuses in a ${operation} projection $refusal (known-different on MiniStack, which $instead)`,
      refusedBy(operation),
    );
  }
});
