import { describe, expect, it } from 'vitest';
import { TransactionBuilder, TransactionLimit, TransactionLimitError } from '../../../src/index.js';

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
});
