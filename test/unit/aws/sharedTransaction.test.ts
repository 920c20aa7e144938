import { describe, expect, it } from 'vitest';
import { buildSharedTransaction } from '../../../src/aws/sharedTransaction.js';
import { preparedPayment } from '../../support/preparedCommits.js';

describe('buildSharedTransaction', () => {
  it('writes each member’s items in order when they share none', () => {
    const members = [preparedPayment('p1', 'a', 10), preparedPayment('p2', 'b', 20)];

    const { items, layout } = buildSharedTransaction(members);

    expect(items).toEqual(members.flatMap((member) => member.items));
    expect(layout).toEqual({
      positions: [
        [0, 1, 2],
        [3, 4, 5],
      ],
      merged: new Set(),
    });
  });

  it('writes an item several members ADD to once, at its first member’s place, adding their amounts', () => {
    const members = [
      preparedPayment('p1', 'hot', 10),
      preparedPayment('p2', 'cold', 5),
      preparedPayment('p3', 'hot', 20),
      preparedPayment('p4', 'hot', -7),
    ];

    const { items, layout } = buildSharedTransaction(members);

    expect(items).toHaveLength(10);
    expect(items[1]).toEqual({
      Update: {
        TableName: 'accounts',
        Key: { accountId: 'hot' },
        UpdateExpression: 'ADD balanceCents :a0',
        ExpressionAttributeValues: { ':a0': 23 },
      },
    });
    expect(items[4]).toBe(members[1]?.items[1]);
    expect(layout).toEqual({
      positions: [
        [0, 1, 2],
        [3, 4, 5],
        [6, 1, 7],
        [8, 1, 9],
      ],
      merged: new Set([1]),
    });
  });

  it('writes a shared item that is not mergeable in every member twice, for DynamoDB to refuse the whole', () => {
    const members = [
      preparedPayment('p1', 'hot', 10),
      preparedPayment('p2', 'hot', -5, { condition: 'balanceCents >= :amount' }),
    ];

    const { items, layout } = buildSharedTransaction(members);

    expect(items).toEqual(members.flatMap((member) => member.items));
    expect(layout.merged).toEqual(new Set());
  });

  it('merges nothing its store did not mark mergeable (a store without mergeableIds)', () => {
    const members = [preparedPayment('p1', 'hot', 10), preparedPayment('p2', 'hot', 20)].map(
      ({ mergeableIds: _, ...member }) => member,
    );

    const { items, layout } = buildSharedTransaction(members);

    expect(items).toEqual(members.flatMap((member) => member.items));
    expect(layout.merged).toEqual(new Set());
  });

  it('builds the same request from the same members, so a retry with its ClientRequestToken matches', () => {
    const members = [preparedPayment('p1', 'hot', 10), preparedPayment('p2', 'hot', 20)];

    expect(buildSharedTransaction(members)).toEqual(buildSharedTransaction(members));
  });
});
