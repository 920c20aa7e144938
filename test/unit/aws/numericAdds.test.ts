import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  mergeableItemIds,
  mergeNumericAdds,
  type NumericAddUpdate,
  parseNumericAdds,
} from '../../../src/aws/numericAdds.js';
import type { TransactItem, TransactUpdateInput } from '../../../src/core/TransactionBuilder.js';

const KEY = { accountId: 'acc-1' };

/** An Update of the accounts table with the given fields. */
function update(fields: Partial<TransactUpdateInput>): TransactItem {
  return {
    Update: {
      TableName: 'accounts',
      Key: KEY,
      UpdateExpression: 'ADD balanceCents :amount',
      ExpressionAttributeValues: { ':amount': 250 },
      ...fields,
    } as TransactUpdateInput,
  };
}

describe('parseNumericAdds', () => {
  it.each([
    ['one plain name', update({}), [{ name: 'balanceCents', plain: true, amount: 250n }]],
    [
      'a #name, several actions and any whitespace',
      update({
        UpdateExpression: '  ADD #total :a,\n\tcount   :one ',
        ExpressionAttributeNames: { '#total': 'total' },
        ExpressionAttributeValues: { ':a': -40, ':one': 1 },
      }),
      [
        { name: 'total', plain: false, amount: -40n },
        { name: 'count', plain: true, amount: 1n },
      ],
    ],
    [
      'one value used by two names',
      update({
        UpdateExpression: 'ADD a :one, b :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
      [
        { name: 'a', plain: true, amount: 1n },
        { name: 'b', plain: true, amount: 1n },
      ],
    ],
    [
      'an integer NumberValue past 2^53',
      update({ ExpressionAttributeValues: { ':amount': NumberValue.from('90071992547409930') } }),
      [{ name: 'balanceCents', plain: true, amount: 90071992547409930n }],
    ],
    [
      'fields set to undefined, which lib-dynamodb leaves out',
      update({ ConditionExpression: undefined, ExpressionAttributeNames: undefined }),
      [{ name: 'balanceCents', plain: true, amount: 250n }],
    ],
  ])('recognises %s', (_, item, adds) => {
    expect(parseNumericAdds(item)).toEqual({ tableName: 'accounts', key: KEY, adds });
  });

  it.each([
    ['a Put', { Put: { TableName: 'accounts', Item: { accountId: 'a', balanceCents: 1 } } }],
    ['a condition', update({ ConditionExpression: 'attribute_exists(accountId)' })],
    ['a return on condition failure', update({ ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })],
    ['a SET clause', update({ UpdateExpression: 'ADD balanceCents :amount SET c = :amount' })],
    ['a SET before the ADD', update({ UpdateExpression: 'SET c = :amount ADD balanceCents :b' })],
    ['a REMOVE clause', update({ UpdateExpression: 'ADD balanceCents :amount REMOVE note' })],
    ['a SET alone', update({ UpdateExpression: 'SET balanceCents = balanceCents + :amount' })],
    ['a lower-case keyword', update({ UpdateExpression: 'add balanceCents :amount' })],
    ['a decimal', update({ ExpressionAttributeValues: { ':amount': 2.5 } })],
    ['an unsafe integer', update({ ExpressionAttributeValues: { ':amount': 2 ** 53 } })],
    [
      'a decimal NumberValue',
      update({ ExpressionAttributeValues: { ':amount': NumberValue.from('2.5') } }),
    ],
    ['a string', update({ ExpressionAttributeValues: { ':amount': '250' } })],
    ['a bigint', update({ ExpressionAttributeValues: { ':amount': 250n } })],
    [
      'a plain object that looks like a NumberValue (a map)',
      update({ ExpressionAttributeValues: { ':amount': { value: '250' } } }),
    ],
    ['a number set', update({ ExpressionAttributeValues: { ':amount': new Set([1, 2]) } })],
    ['a nested path', update({ UpdateExpression: 'ADD totals.cents :amount' })],
    ['a list element', update({ UpdateExpression: 'ADD totals[0] :amount' })],
    ['the same attribute twice', update({ UpdateExpression: 'ADD a :amount, a :amount' })],
    [
      'the same attribute plainly and by #name',
      update({
        UpdateExpression: 'ADD a :amount, #a :amount',
        ExpressionAttributeNames: { '#a': 'a' },
      }),
    ],
    ['a key attribute', update({ UpdateExpression: 'ADD accountId :amount' })],
    ['an unknown #name', update({ UpdateExpression: 'ADD #b :amount' })],
    ['an unknown value', update({ UpdateExpression: 'ADD balanceCents :other' })],
    ['an unused name', update({ ExpressionAttributeNames: { '#unused': 'x' } })],
    ['an unused value', update({ ExpressionAttributeValues: { ':amount': 1, ':unused': 2 } })],
    ['a trailing comma', update({ UpdateExpression: 'ADD balanceCents :amount,' })],
    ['a missing value', update({ UpdateExpression: 'ADD balanceCents' })],
    [
      'an unknown field',
      update({ ReturnConsumedCapacity: 'TOTAL' } as Partial<TransactUpdateInput>),
    ],
  ])('refuses %s', (_, item) => {
    expect(parseNumericAdds(item as TransactItem)).toBeUndefined();
  });
});

describe('mergeableItemIds', () => {
  it('marks the business updates that are numeric ADDs, never the entry, nor an item written twice', () => {
    const items = [
      update({}),
      update({}),
      update({ ConditionExpression: 'x = :amount' }),
      update({}),
      update({}),
    ];
    const ids = ['entry', 'account', 'checked', 'twice', 'twice'];

    expect([...mergeableItemIds(items, ids)]).toEqual(['account']);
  });
});

describe('mergeNumericAdds', () => {
  const parsed = (item: TransactItem) => parseNumericAdds(item) as NumericAddUpdate;

  it('writes one ADD per attribute with the amounts summed exactly, in its own placeholders', () => {
    const merged = mergeNumericAdds([
      parsed(update({ ExpressionAttributeValues: { ':amount': Number.MAX_SAFE_INTEGER } })),
      parsed(
        update({
          UpdateExpression: 'ADD #n :amount, balanceCents :a0',
          ExpressionAttributeNames: { '#n': 'count' },
          ExpressionAttributeValues: { ':amount': 1, ':a0': 2 },
        }),
      ),
      parsed(
        update({
          UpdateExpression: 'ADD #a0 :x',
          ExpressionAttributeNames: { '#a0': 'count' },
          ExpressionAttributeValues: { ':x': -3 },
        }),
      ),
    ]);

    expect(merged).toEqual({
      Update: {
        TableName: 'accounts',
        Key: KEY,
        UpdateExpression: 'ADD balanceCents :a0, #a1 :a1',
        ExpressionAttributeNames: { '#a1': 'count' },
        ExpressionAttributeValues: { ':a0': NumberValue.from('9007199254740993'), ':a1': -2 },
      },
    });
  });

  it('keeps an attribute plain when any member wrote it plainly (a reserved word is refused merged as alone)', () => {
    const merged = mergeNumericAdds([
      parsed(
        update({
          UpdateExpression: 'ADD #t :amount',
          ExpressionAttributeNames: { '#t': 'total' },
        }),
      ),
      parsed(update({ UpdateExpression: 'ADD total :amount' })),
    ]);

    expect(merged.Update?.UpdateExpression).toBe('ADD total :a0');
    expect(merged.Update).not.toHaveProperty('ExpressionAttributeNames');
    expect(merged.Update?.ExpressionAttributeValues).toEqual({ ':a0': 500 });
  });
});
