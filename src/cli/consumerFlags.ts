import { InboxEnvironment } from '../constants/values.js';
import type { CommonValues } from './cliOptions.js';

/**
 * The flags that give a consumer's `INBOX_*` variables on the command line, by variable: what a
 * command otherwise reads from the consumer's function (its name aside, which is the positional
 * or `--consumer`). The one table both ways: flags to variables, and variables to flags.
 */
const CONSUMER_FLAGS = {
  [InboxEnvironment.TableName]: 'table',
  [InboxEnvironment.DeadLetterQueueUrl]: 'dlq',
  [InboxEnvironment.OutboxTableName]: 'outbox-table',
  [InboxEnvironment.TtlSeconds]: 'ttl-seconds',
  [InboxEnvironment.Sources]: 'sources',
  [InboxEnvironment.Key]: 'key-from',
} as const satisfies Readonly<Record<string, keyof CommonValues>>;

/**
 * The variables the command line gives: one for each flag of {@link CONSUMER_FLAGS} given.
 *
 * @example
 * ```ts
 * environmentOfFlags({ table: 'ledger-inbox' }); // => { INBOX_TABLE_NAME: 'ledger-inbox' }
 * ```
 */
export function environmentOfFlags(values: CommonValues): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [variable, flag] of Object.entries(CONSUMER_FLAGS)) {
    const value = values[flag];
    if (value !== undefined) environment[variable] = value;
  }
  return environment;
}

/**
 * The flags that give a consumer's variables to the command, as its function's environment
 * would: `--<flag> <value>` for each variable of {@link CONSUMER_FLAGS} set (not empty) in
 * `environment`. The command reads them back with {@link environmentOfFlags}.
 *
 * @example
 * ```ts
 * consumerFlags({ INBOX_TABLE_NAME: 'ledger-inbox' }); // => ['--table', 'ledger-inbox']
 * ```
 */
export function consumerFlags(environment: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(CONSUMER_FLAGS).flatMap(([variable, flag]) => {
    const value = environment[variable];
    return value ? [`--${flag}`, value] : [];
  });
}
