/**
 * DynamoDB honours a TransactWriteItems ClientRequestToken for ten minutes from the completion of
 * the first request that carried it; after that, a request with the token is a new request (API
 * reference, TransactWriteItems). No emulator can be made to wait ten minutes in a test, so the
 * window is checked on the model (src/testing/dynamo/ClientTokens.ts).
 */
import type { TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  CLIENT_TOKEN_WINDOW_MILLIS,
  ClientTokens,
} from '../../../src/testing/dynamo/ClientTokens.js';
import type { SimDynamoDB } from '../../../src/testing/dynamo/SimDynamoDB.js';
import { N, S, simWithTables, thrown } from './simFixture.js';

const add = (pk: string, n = '1'): TransactWriteItem => ({
  Update: {
    TableName: 't',
    Key: { pk: S(pk) },
    UpdateExpression: 'ADD n :n',
    ExpressionAttributeValues: { ':n': N(n) },
  },
});
const HOLD_MILLIS = 20;
const at = (nowMillis: number) => ({ nowMillis, holdMillis: HOLD_MILLIS });
const counter = (dynamo: SimDynamoDB, pk = 'a') =>
  dynamo.getItem({ TableName: 't', Key: { pk: S(pk) } }).Item?.n;

describe('SimDynamoDB ClientRequestToken window (ten minutes, documented; no emulator)', () => {
  it('answers the same request within ten minutes of its completion without applying it, and applies it again from then on', () => {
    const dynamo = simWithTables();
    const input = { TransactItems: [add('a')], ClientRequestToken: 'token-1' };
    dynamo.transactWriteItems(input, at(100));
    const completedMillis = 100 + HOLD_MILLIS;

    dynamo.transactWriteItems(input, at(completedMillis + CLIENT_TOKEN_WINDOW_MILLIS - 1));
    expect(counter(dynamo)).toEqual(N('1'));

    dynamo.transactWriteItems(input, at(completedMillis + CLIENT_TOKEN_WINDOW_MILLIS));
    expect(counter(dynamo)).toEqual(N('2'));
  });

  it('takes the token with other parameters after ten minutes as a new request, not an IdempotentParameterMismatchException', () => {
    const dynamo = simWithTables();
    dynamo.transactWriteItems({ TransactItems: [add('a')], ClientRequestToken: 'token-1' }, at(0));
    const other = { TransactItems: [add('b')], ClientRequestToken: 'token-1' };

    expect(thrown(() => dynamo.transactWriteItems(other, at(600_000))).name).toBe(
      'IdempotentParameterMismatchException',
    );
    dynamo.transactWriteItems(other, at(HOLD_MILLIS + CLIENT_TOKEN_WINDOW_MILLIS));

    expect(counter(dynamo, 'b')).toEqual(N('1'));
  });

  it('starts the ten minutes again from the new request’s completion once it applied', () => {
    const dynamo = simWithTables();
    const input = { TransactItems: [add('a')], ClientRequestToken: 'token-1' };
    dynamo.transactWriteItems(input, at(0));
    const second = HOLD_MILLIS + CLIENT_TOKEN_WINDOW_MILLIS;
    dynamo.transactWriteItems(input, at(second));

    dynamo.transactWriteItems(input, at(second + CLIENT_TOKEN_WINDOW_MILLIS));
    expect(counter(dynamo)).toEqual(N('2'));
  });

  it('counts the ten minutes on its now option for a request that carries no ServerTime', () => {
    let nowMillis = 1_000;
    const dynamo = simWithTables({ now: () => nowMillis });
    const input = { TransactItems: [add('a')], ClientRequestToken: 'token-1' };
    dynamo.transactWriteItems(input);

    nowMillis += CLIENT_TOKEN_WINDOW_MILLIS - 1;
    dynamo.transactWriteItems(input);
    expect(counter(dynamo)).toEqual(N('1'));

    nowMillis += 1;
    dynamo.transactWriteItems(input);
    expect(counter(dynamo)).toEqual(N('2'));
  });

  it('prefers a request’s ServerTime to its now option', () => {
    const dynamo = simWithTables({ now: () => 0 });
    const input = { TransactItems: [add('a')], ClientRequestToken: 'token-1' };
    dynamo.transactWriteItems(input, at(0));

    dynamo.transactWriteItems(input, at(HOLD_MILLIS + CLIENT_TOKEN_WINDOW_MILLIS));

    expect(counter(dynamo)).toEqual(N('2'));
  });

  it('keeps a token forever when it was applied with no time (no ServerTime, no now option)', () => {
    const dynamo = simWithTables();
    const input = { TransactItems: [add('a')], ClientRequestToken: 'token-1' };
    dynamo.transactWriteItems(input);

    dynamo.transactWriteItems(input, at(10 * CLIENT_TOKEN_WINDOW_MILLIS));

    expect(counter(dynamo)).toEqual(N('1'));
  });
});

describe('ClientTokens', () => {
  it('forgets the tokens whose ten minutes are over when it remembers another', () => {
    const tokens = new ClientTokens();
    tokens.remember('old', '[]', 0);
    tokens.remember('recent', '[]', 1);

    tokens.remember('new', '[]', CLIENT_TOKEN_WINDOW_MILLIS);

    expect(tokens.size).toBe(2);
    expect(tokens.appliedWith('recent', CLIENT_TOKEN_WINDOW_MILLIS)).toBe('[]');
    expect(tokens.appliedWith('old', 0)).toBeUndefined();
  });
});
