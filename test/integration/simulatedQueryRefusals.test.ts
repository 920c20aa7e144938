/**
 * The Query and Scan requests DynamoDB refuses, sent to several DynamoDBs: the project's
 * emulator (MiniStack under `integration`, DynamoDB Local under `conformance`) and the simulator
 * of src/testing/dynamo. DynamoDB Local is the reference: each case checks the error's name and
 * the key part of its message. A case MiniStack gets wrong (it answers, or refuses in other
 * words) is marked "known-different on MiniStack" and expected to fail there, so it tells when
 * MiniStack is fixed. The cases are in test/support/queryRefusals.ts and readRefusals.ts; those
 * of a string sort key go to a second table, keyed `pk` (S) and `sk` (S).
 */
import {
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caught, createTable, deleteTables, dynamoTargets } from '../support/dynamoTargets.js';
import {
  KEY_CONDITION_REFUSALS,
  type RefusalCase,
  STRING_KEY_CONDITION_REFUSALS,
} from '../support/queryRefusals.js';
import { READ_REFUSALS } from '../support/readRefusals.js';

const CASES = [...KEY_CONDITION_REFUSALS, ...READ_REFUSALS];

describe.each(dynamoTargets())('Query and Scan refusals on $name', (target) => {
  /** A test DynamoDB Local passes and MiniStack fails: expected to fail on MiniStack. */
  const knownDifferentOnMiniStack = target.name.startsWith('MiniStack') ? it.fails : it;
  let client: DynamoDBDocumentClient;
  let close: () => void;
  let table = '';
  let strings = '';

  beforeAll(async () => {
    ({ client, close } = target.connect());
    const keyedBy = (sortKeyType: 'N' | 'S') =>
      createTable(client, 'refusals', [
        ['pk', 'S', 'HASH'],
        ['sk', sortKeyType, 'RANGE'],
      ]);
    [table, strings] = await Promise.all([keyedBy('N'), keyedBy('S')]);
    for (const sk of [1, 2, 10]) {
      await client.send(new PutCommand({ TableName: table, Item: { pk: 'p', sk, n: sk } }));
      await client.send(new PutCommand({ TableName: strings, Item: { pk: 'p', sk: `s${sk}` } }));
    }
  });
  afterAll(async () => {
    await deleteTables(client, [table, strings]);
    close();
  });

  const refusalOn = (TableName: () => string) => async (refused: RefusalCase) => {
    const { operation, input, message } = refused;
    const request = { TableName: TableName(), ...input };
    const command = operation === 'Query' ? new QueryCommand(request) : new ScanCommand(request);
    const error = await caught(client.send(command));
    expect(error.name).toBe('ValidationException');
    expect(error.message).toMatch(message);
  };

  const refusal = refusalOn(() => table);
  const onStrings = refusalOn(() => strings);

  it.each(CASES.filter((c) => c.miniStack === undefined))('refuses $refusal', refusal);

  knownDifferentOnMiniStack.each(CASES.filter((c) => c.miniStack !== undefined))(
    'refuses $refusal (known-different on MiniStack, which $miniStack)',
    refusal,
  );

  it.each(STRING_KEY_CONDITION_REFUSALS.filter((c) => c.miniStack === undefined))(
    'refuses $refusal',
    onStrings,
  );

  knownDifferentOnMiniStack.each(
    STRING_KEY_CONDITION_REFUSALS.filter((c) => c.miniStack !== undefined),
  )('refuses $refusal (known-different on MiniStack, which $miniStack)', onStrings);
});
