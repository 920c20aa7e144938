import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { outboxMessageId } from '../../../src/constants/index.js';
import {
  OutgoingMessageError,
  TransactionClosedError,
  TransactionLimit,
  TransactionLimitError,
} from '../../../src/errors.js';
import { TransactionBuilder } from '../../../src/index.js';

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

describe('TransactionBuilder.publish', () => {
  const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/credits';
  const FIFO = 'https://sqs.eu-west-1.amazonaws.com/123456789012/credits.fifo';
  const context = { consumer: 'ledger', key: 'pay-1', outboxTableName: 'outbox' };

  it('returns ids derived from consumer, key and position or name', () => {
    const tx = new TransactionBuilder(context);
    const first = tx.publish({ destination: QUEUE, body: 'a' });
    const named = tx.publish({ destination: QUEUE, body: 'b', name: 'audit' });
    expect(first).toBe(outboxMessageId('ledger', 'pay-1', { index: 0 }));
    expect(named).toBe(outboxMessageId('ledger', 'pay-1', { name: 'audit' }));
    expect(tx.outgoing.map(({ id }) => id)).toEqual([first, named]);
  });

  it('refuses to publish without an outbox, naming the option', () => {
    const tx = new TransactionBuilder({ ...context, outboxTableName: undefined });
    expect(() => tx.publish({ destination: QUEUE, body: 'a' })).toThrow(/outbox: \{ tableName \}/);
    expect(() => new TransactionBuilder().publish({ destination: QUEUE, body: 'a' })).toThrow(
      OutgoingMessageError,
    );
  });

  it('refuses a name used twice in one message', () => {
    const tx = new TransactionBuilder(context);
    tx.publish({ destination: QUEUE, body: 'a', name: 'n' });
    expect(() => tx.publish({ destination: QUEUE, body: 'b', name: 'n' })).toThrow(/used twice/);
    expect(tx.outgoing).toHaveLength(1);
  });

  it('counts each ungrouped message and each group against the 99 operations', () => {
    const tx = new TransactionBuilder(context);
    for (let i = 0; i < 97; i += 1) tx.put({ TableName: 't', Item: { pk: `p${i}` } });
    tx.publish({ destination: FIFO, body: 'a', groupId: 'g' });
    tx.publish({ destination: FIFO, body: 'b', groupId: 'g' }); // the same group's item
    tx.publish({ destination: QUEUE, body: 'c' });
    expect(() => tx.publish({ destination: QUEUE, body: 'd' })).toThrow(TransactionLimitError);
    expect(() => tx.put({ TableName: 't', Item: { pk: 'x' } })).toThrow(/outbox items/);
    expect(() => tx.publish({ destination: FIFO, body: 'e', groupId: 'g' })).not.toThrow();
  });

  it('refuses a message published after the handler settled', () => {
    const tx = new TransactionBuilder(context);
    tx.close('m-1');
    expect(() => tx.publish({ destination: QUEUE, body: 'a' })).toThrow(TransactionClosedError);
  });
});
