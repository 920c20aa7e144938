import type { ConsumerDefinition } from '../../../functions/shared/ConsumerDefinition.js';
import type { MessageHandler } from '../../../src/index.js';
import type { SimDynamoDB } from '../../../src/testing/dynamo/SimDynamoDB.js';
import {
  COUNTERS_TABLE,
  type CounterIncremented,
  counterConsumer,
} from '../../chaos/counterConsumer.js';

/**
 * The counter of a world with `unknownCounterRate`: the chaos run's increment, but only into a
 * counter that was opened (a tally per registered merchant, say). The condition is a
 * conditional `ADD` on a hot item: commits of one counter may share a transaction under
 * `coalesce`, but must not be merged into one update, which would drop the condition and
 * create a counter nobody opened. An increment of an unknown counter fails with
 * `BusinessConditionFailedError` at every receive and is dead-lettered on its last.
 *
 * @example
 * ```ts
 * const handler = addToOpenedCounter('counters'); // MessageHandler<CounterIncremented>
 * ```
 */
export function addToOpenedCounter(countersTable: string): MessageHandler<CounterIncremented> {
  return ({ body }, tx) => {
    tx.update({
      TableName: countersTable,
      Key: { counterId: body.counterId },
      UpdateExpression: 'ADD #total :amount',
      ConditionExpression: 'attribute_exists(counterId)',
      ExpressionAttributeNames: { '#total': 'total' }, // a reserved word in DynamoDB
      ExpressionAttributeValues: { ':amount': body.amount },
    });
  };
}

/**
 * The guarded counter consumer: the counter's schema and key, its increments conditioned on
 * the counter existing.
 *
 * @example
 * ```ts
 * const definition = config.unknownCounterRate === undefined ? counterConsumer : guardedCounterConsumer;
 * ```
 */
export const guardedCounterConsumer: ConsumerDefinition<typeof CounterIncremented> = {
  ...counterConsumer,
  handler: (table) => addToOpenedCounter(table(COUNTERS_TABLE)),
};

/**
 * Opens the world's counters before the run (each at 0), so that their guarded increments
 * apply; the unknown counter is left unopened.
 *
 * @example
 * ```ts
 * openCounters(dynamo, workload.accounts);
 * ```
 */
export function openCounters(
  dynamo: SimDynamoDB,
  accounts: ReadonlyArray<{ readonly accountId: string }>,
): void {
  for (const { accountId } of accounts) {
    dynamo.putItem({
      TableName: COUNTERS_TABLE,
      Item: { counterId: { S: accountId }, total: { N: '0' } },
    });
  }
}
