import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { DynamoDBInboxStore } from '../aws/DynamoDBInboxStore.js';
import type { ProcessorSettings } from '../core/ProcessorSettings.js';

/**
 * The options of {@link processSqsBatch} and {@link createBatchProcessor}: the
 * `ProcessorSettings` (`sqs-inbox/types`) and the store. Behind the
 * `InboxConsumer` construct, `inboxConfigFromEnvironment().options` gives the store, consumer,
 * TTL, sources, DLQ, key and retry. Each option's TSDoc states its default (`@defaultValue`).
 *
 * @example
 * ```ts
 * const options: InboxOptions<typeof PaymentSchema> = {
 *   store, consumer: 'ledger', schema: PaymentSchema, key: (m) => m.body.eventId,
 * };
 * ```
 * @public
 */
export interface InboxOptions<TSchema extends StandardSchemaV1 = StandardSchemaV1<unknown>>
  extends ProcessorSettings<TSchema> {
  /**
   * Where inbox entries live and where the transaction is committed:
   * `new DynamoDBInboxStore({ tableName })`, one per container, shared by the processors.
   */
  readonly store: DynamoDBInboxStore;
}
