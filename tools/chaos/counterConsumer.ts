import type { MessageHandler } from 'sqs-inbox';
import { z } from 'zod';
import type { ConsumerDefinition } from '../../functions/shared/ConsumerDefinition.js';

/** An amount to add to a counter: the chaos run's deliberately naive event. */
export const CounterIncremented = z.object({
  eventId: z.string().min(1),
  counterId: z.string().min(1),
  amount: z.number().int().positive(),
});
export type CounterIncremented = z.infer<typeof CounterIncremented>;

/**
 * Adds the amount to the counter, with no condition of its own: applied twice, it counts twice.
 * The reference consumers also guard their writes with business conditions (one ledger entry per
 * payment, one decision per order), which would hide a broken inbox; this consumer's
 * exactly-once rests on the inbox alone, so the chaos run's counter invariant tests the inbox.
 *
 * @example
 * ```ts
 * const handler = addToCounter('chaos-counters'); // MessageHandler<CounterIncremented>
 * ```
 */
export function addToCounter(countersTable: string): MessageHandler<CounterIncremented> {
  return async ({ body }, tx) => {
    tx.update({
      TableName: countersTable,
      Key: { counterId: body.counterId },
      UpdateExpression: 'ADD #total :amount',
      ExpressionAttributeNames: { '#total': 'total' }, // a reserved word in DynamoDB
      ExpressionAttributeValues: { ':amount': body.amount },
    });
  };
}

/** The counter consumer's business table, by its logical name. */
export const COUNTERS_TABLE = 'counters';

/** The counter consumer: keyed by `eventId`; its business table {@link COUNTERS_TABLE}. */
export const counterConsumer: ConsumerDefinition<typeof CounterIncremented> = {
  schema: CounterIncremented,
  key: ({ body }) => body.eventId,
  handler: (table) => addToCounter(table(COUNTERS_TABLE)),
};
