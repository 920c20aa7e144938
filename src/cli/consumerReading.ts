import type { OperatorClients } from '../aws/operatorClients.js';
import { DEFAULT_OUTBOX_RETENTION_SECONDS, InboxEnvironment } from '../constants/values.js';
import { inboxConfigFromEnvironment } from '../environment/inboxConfigFromEnvironment.js';
import type { ConsumerReading } from '../operations/recoverKey.js';
import { UsageError } from './CliError.js';
import type { ConsumerTarget } from './resolveTarget.js';

/** Stand-ins for variables a reading does not use, so the contract's reader reads the rest. */
const UNUSED = {
  [InboxEnvironment.TtlSeconds]: '86400',
  [InboxEnvironment.DeadLetterQueueUrl]: 'https://sqs.us-east-1.amazonaws.com/000000000000/unused',
  [InboxEnvironment.MaxReceiveCount]: '5',
  // Read only with an outbox table, and then not used by an operator's reading.
  [InboxEnvironment.OutboxRetentionSeconds]: String(DEFAULT_OUTBOX_RETENTION_SECONDS),
};

/**
 * How the target consumer reads its messages — its store, sources and declared key — read by
 * the library's own reader of the environment contract, so a DLQ message is keyed exactly as
 * the consumer keys it; and its TTL, when known.
 *
 * @example
 * ```ts
 * const { reading, ttlSeconds } = consumerReading(target, clients, values['key-is-message-id']);
 * ```
 */
export function consumerReading(
  target: ConsumerTarget,
  clients: OperatorClients,
  keyIsMessageId = false,
): { readonly reading: ConsumerReading; readonly ttlSeconds?: number; readonly tableName: string } {
  const tableName = target.environment[InboxEnvironment.TableName];
  if (!tableName) throw new UsageError('this command needs --table <inbox table> (or --function)');
  const config = inboxConfigFromEnvironment({
    env: { ...UNUSED, ...target.environment },
    dynamoDBClient: clients.dynamodb(),
  });
  const { store, consumer, sources, key } = config.options;
  const ttlText = target.environment[InboxEnvironment.TtlSeconds];
  return {
    reading: { store, consumer, sources, ...(key ? { key } : {}), keyIsMessageId },
    ...(ttlText ? { ttlSeconds: config.options.ttlSeconds } : {}),
    tableName,
  };
}
