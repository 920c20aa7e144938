import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  TransactionBuilder,
  TransactionClosedError,
  TransactionLimit,
  TransactionLimitError,
} from '../../../src/index.js';

describe('TransactionBuilder', () => {
  it('keeps operations in the order they were added', () => {
    const tx = new TransactionBuilder()
      .put({ TableName: 't', Item: { pk: 'a' } })
      .update({
        TableName: 't',
        Key: { pk: 'b' },
        UpdateExpression: 'SET n = :n',
        ExpressionAttributeValues: { ':n': 1 },
      })
      .delete({ TableName: 't', Key: { pk: 'c' } })
      .conditionCheck({
        TableName: 't',
        Key: { pk: 'd' },
        ConditionExpression: 'attribute_exists(pk)',
      });

    expect(tx.operations.map((operation) => Object.keys(operation)[0])).toEqual([
      'Put',
      'Update',
      'Delete',
      'ConditionCheck',
    ]);
  });

  it.each([
    [
      'a Put without TableName',
      (tx: TransactionBuilder) => tx.put({ Item: { pk: 'a' } } as never),
      /TableName/,
    ],
    [
      'a Put without Item',
      (tx: TransactionBuilder) => tx.put({ TableName: 't' } as never),
      /Put #0 needs a non-empty object Item/,
    ],
    [
      'an Update without UpdateExpression',
      (tx: TransactionBuilder) => tx.update({ TableName: 't', Key: { pk: 'a' } } as never),
      /UpdateExpression/,
    ],
    [
      'a Delete with an empty Key',
      (tx: TransactionBuilder) => tx.delete({ TableName: 't', Key: {} }),
      /Key/,
    ],
    [
      'a ConditionCheck without condition',
      (tx: TransactionBuilder) => tx.conditionCheck({ TableName: 't', Key: { pk: 'a' } } as never),
      /ConditionExpression/,
    ],
  ])('rejects %s at once with a permanent error', (_case, add, message) => {
    const tx = new TransactionBuilder();
    expect(() => add(tx)).toThrow(TransactionLimitError);
    expect(() => add(tx)).toThrow(message);
  });

  it('rejects the 100th business operation: one of DynamoDB’s 100 slots is the inbox entry', () => {
    const tx = new TransactionBuilder();
    for (let i = 0; i < 99; i++) tx.delete({ TableName: 't', Key: { pk: `k${i}` } });

    const add = () => tx.delete({ TableName: 't', Key: { pk: 'k99' } });

    expect(add).toThrow(
      expect.objectContaining({ limit: TransactionLimit.OperationCount, actual: 100, maximum: 99 }),
    );
    expect(tx.operations).toHaveLength(99);
  });

  it('keeps a copy of each operation: changing the item, its sets or its bytes afterwards changes nothing', () => {
    const tags = new Set(['a']);
    const bytes = Uint8Array.from([1, 2]);
    const amount = NumberValue.from('12345678901234567890');
    const item = { pk: 'k', nested: { n: 1, list: [1] }, tags, bytes, amount };
    const tx = new TransactionBuilder().put({ TableName: 't', Item: item });

    item.nested.n = 2;
    item.nested.list.push(2);
    tags.add('b');
    bytes[0] = 9;

    expect(tx.operations[0]?.Put?.Item).toEqual({
      pk: 'k',
      nested: { n: 1, list: [1] },
      tags: new Set(['a']),
      bytes: Uint8Array.from([1, 2]),
      amount,
    });
    expect(tx.operations[0]?.Put?.Item?.amount).toBeInstanceOf(NumberValue);
  });

  it('refuses an operation after close, naming the message and the fix (await your work)', () => {
    const tx = new TransactionBuilder().delete({ TableName: 't', Key: { pk: 'a' } });
    tx.close('m-7');

    const late = () =>
      tx.update({ TableName: 't', Key: { pk: 'b' }, UpdateExpression: 'SET n = :n' });

    expect(late).toThrow(TransactionClosedError);
    expect(late).toThrow(
      /Update added to tx after the handler of message m-7 settled.*Await all your work/,
    );
    expect(tx.operations).toHaveLength(1);
  });
});
