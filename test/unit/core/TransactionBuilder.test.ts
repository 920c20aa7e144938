import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { outboxMessageId } from '../../../src/constants/index.js';
import { openTransaction } from '../../../src/core/TransactionBuilder.js';
import {
  OutgoingMessageError,
  TransactionClosedError,
  TransactionLimit,
  TransactionLimitError,
} from '../../../src/errors.js';
import { TransactionBuilder } from '../../../src/index.js';

describe('TransactionBuilder', () => {
  it('shows a handler only what it may call: nothing to read back, no way to close', () => {
    const names = Object.getOwnPropertyNames(TransactionBuilder.prototype).sort();

    expect(names).toEqual(['conditionCheck', 'constructor', 'delete', 'publish', 'put', 'update']);
    expect(Object.keys(openTransaction().tx)).toEqual([]);
  });

  it('keeps operations in the order they were added', () => {
    const transaction = openTransaction();
    transaction.tx
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

    expect(transaction.operations.map((operation) => Object.keys(operation)[0])).toEqual([
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
    const { tx } = openTransaction();
    expect(() => add(tx)).toThrow(TransactionLimitError);
    expect(() => add(tx)).toThrow(message);
  });

  it('rejects the 100th business operation: one of DynamoDB’s 100 slots is the inbox entry', () => {
    const transaction = openTransaction();
    const { tx } = transaction;
    for (let i = 0; i < 99; i++) tx.delete({ TableName: 't', Key: { pk: `k${i}` } });

    const add = () => tx.delete({ TableName: 't', Key: { pk: 'k99' } });

    expect(add).toThrow(
      expect.objectContaining({ limit: TransactionLimit.OperationCount, actual: 100, maximum: 99 }),
    );
    expect(transaction.operations).toHaveLength(99);
  });

  it('keeps a copy of each operation: changing the item, its sets or its bytes afterwards changes nothing', () => {
    const tags = new Set(['a']);
    const bytes = Uint8Array.from([1, 2]);
    const amount = NumberValue.from('12345678901234567890');
    const item = { pk: 'k', nested: { n: 1, list: [1] }, tags, bytes, amount };
    const transaction = openTransaction();
    transaction.tx.put({ TableName: 't', Item: item });

    item.nested.n = 2;
    item.nested.list.push(2);
    tags.add('b');
    bytes[0] = 9;

    expect(transaction.operations[0]?.Put?.Item).toEqual({
      pk: 'k',
      nested: { n: 1, list: [1] },
      tags: new Set(['a']),
      bytes: Uint8Array.from([1, 2]),
      amount,
    });
    expect(transaction.operations[0]?.Put?.Item?.amount).toBeInstanceOf(NumberValue);
  });

  it('refuses an operation after close, naming the message and the fix (await your work)', () => {
    const transaction = openTransaction();
    const { tx } = transaction;
    tx.delete({ TableName: 't', Key: { pk: 'a' } });
    transaction.close('m-7');

    const late = () =>
      tx.update({ TableName: 't', Key: { pk: 'b' }, UpdateExpression: 'SET n = :n' });

    expect(late).toThrow(TransactionClosedError);
    expect(late).toThrow(
      /Update added to tx after the handler of message m-7 settled.*Await all your work/,
    );
    expect(transaction.operations).toHaveLength(1);
  });
});

describe('TransactionBuilder.publish', () => {
  const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/credits';
  const FIFO = 'https://sqs.eu-west-1.amazonaws.com/123456789012/credits.fifo';
  const context = { consumer: 'ledger', key: 'pay-1', outboxTableName: 'outbox' };

  it('returns ids derived from consumer, key and position or name', () => {
    const transaction = openTransaction(context);
    const { tx } = transaction;
    const first = tx.publish({ destination: QUEUE, body: 'a' });
    const named = tx.publish({ destination: QUEUE, body: 'b', name: 'audit' });
    expect(first).toBe(outboxMessageId('ledger', 'pay-1', { index: 0 }));
    expect(named).toBe(outboxMessageId('ledger', 'pay-1', { name: 'audit' }));
    expect(transaction.outgoing.map(({ id }) => id)).toEqual([first, named]);
  });

  it('refuses to publish without an outbox, naming the option', () => {
    const { tx } = openTransaction({ ...context, outboxTableName: undefined });
    expect(() => tx.publish({ destination: QUEUE, body: 'a' })).toThrow(/outbox: \{ tableName \}/);
    expect(() => openTransaction().tx.publish({ destination: QUEUE, body: 'a' })).toThrow(
      OutgoingMessageError,
    );
  });

  it('refuses a name used twice in one message', () => {
    const transaction = openTransaction(context);
    const { tx } = transaction;
    tx.publish({ destination: QUEUE, body: 'a', name: 'n' });
    expect(() => tx.publish({ destination: QUEUE, body: 'b', name: 'n' })).toThrow(/used twice/);
    expect(transaction.outgoing).toHaveLength(1);
  });

  it('counts each ungrouped message and each group against the 99 operations', () => {
    const { tx } = openTransaction(context);
    for (let i = 0; i < 97; i += 1) tx.put({ TableName: 't', Item: { pk: `p${i}` } });
    tx.publish({ destination: FIFO, body: 'a', groupId: 'g' });
    tx.publish({ destination: FIFO, body: 'b', groupId: 'g' }); // the same group's item
    tx.publish({ destination: QUEUE, body: 'c' });
    expect(() => tx.publish({ destination: QUEUE, body: 'd' })).toThrow(TransactionLimitError);
    expect(() => tx.put({ TableName: 't', Item: { pk: 'x' } })).toThrow(/outbox items/);
    expect(() => tx.publish({ destination: FIFO, body: 'e', groupId: 'g' })).not.toThrow();
  });

  it('refuses a message published after the handler settled', () => {
    const transaction = openTransaction(context);
    transaction.close('m-1');
    expect(() => transaction.tx.publish({ destination: QUEUE, body: 'a' })).toThrow(
      TransactionClosedError,
    );
  });
});
