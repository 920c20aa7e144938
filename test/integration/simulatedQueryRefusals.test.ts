/**
 * The Query and Scan requests DynamoDB refuses, sent to several DynamoDBs: the project's
 * emulator (MiniStack under `integration`, DynamoDB Local under `conformance`) and the simulator
 * of src/testing/dynamo. DynamoDB Local is the reference: each case checks the error's name and
 * the key part of its message. A case MiniStack gets wrong (it answers, or refuses in other
 * words) is marked "known-different on MiniStack" and expected to fail there, so it tells when
 * MiniStack is fixed. The cases are in test/support/queryRefusals.ts and readRefusals.ts.
 */
import {
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caught, createTable, deleteTables, dynamoTargets } from '../support/dynamoTargets.js';
import { KEY_CONDITION_REFUSALS, type RefusalCase } from '../support/queryRefusals.js';
import { READ_REFUSALS } from '../support/readRefusals.js';

const CASES = [...KEY_CONDITION_REFUSALS, ...READ_REFUSALS];

describe.each(dynamoTargets())('Query and Scan refusals on $name', (target) => {
  /** A test DynamoDB Local passes and MiniStack fails: expected to fail on MiniStack. */
  const knownDifferentOnMiniStack = target.name.startsWith('MiniStack') ? it.fails : it;
  let client: DynamoDBDocumentClient;
  let close: () => void;
  let table = '';

  beforeAll(async () => {
    ({ client, close } = target.connect());
    table = await createTable(client, 'refusals', [
      ['pk', 'S', 'HASH'],
      ['sk', 'N', 'RANGE'],
    ]);
    for (const sk of [1, 2, 10]) {
      await client.send(new PutCommand({ TableName: table, Item: { pk: 'p', sk, n: sk } }));
    }
  });
  afterAll(async () => {
    await deleteTables(client, [table]);
    close();
  });

  const refusal = async ({ operation, input, message }: RefusalCase) => {
    const request = { TableName: table, ...input };
    const command = operation === 'Query' ? new QueryCommand(request) : new ScanCommand(request);
    const error = await caught(client.send(command));
    expect(error.name).toBe('ValidationException');
    expect(error.message).toMatch(message);
  };

  it.each(CASES.filter((c) => c.miniStack === undefined))('refuses $refusal', refusal);

  knownDifferentOnMiniStack.each(CASES.filter((c) => c.miniStack !== undefined))(
    'refuses $refusal (known-different on MiniStack, which $miniStack)',
    refusal,
  );
});
