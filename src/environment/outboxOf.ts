import { InboxEnvironment, OUTBOX_RETENTION_RANGE } from '../constants/values.js';
import { EnvironmentError } from '../errors.js';

/**
 * The store's outbox, when the construct gave the function one.
 *
 * @example
 * ```ts
 * new DynamoDBInboxStore({ tableName, ...outboxOf(process.env) });
 * ```
 */
export function outboxOf(env: Readonly<Record<string, string | undefined>>) {
  const tableName = env[InboxEnvironment.OutboxTableName];
  if (!tableName) return {};
  const text = env[InboxEnvironment.OutboxRetentionSeconds] ?? '';
  const retentionSeconds = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  const { min, max } = OUTBOX_RETENTION_RANGE;
  if (!(retentionSeconds >= min && retentionSeconds <= max)) {
    throw new EnvironmentError(
      [InboxEnvironment.OutboxRetentionSeconds],
      `is ${JSON.stringify(text)}`,
      `Set it to whole seconds from ${min} to ${max} (the construct's outbox.retention).`,
    );
  }
  const pipeDestination = env[InboxEnvironment.OutboxPipeDestination];
  return {
    outbox: { tableName, retentionSeconds, ...(pipeDestination ? { pipeDestination } : {}) },
  };
}
