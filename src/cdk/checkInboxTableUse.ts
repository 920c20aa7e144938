import { Token } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IConstruct } from 'constructs';
import { InboxValidationError } from './InboxValidationError.js';

/** Per app: which consumer names already use which inbox table. */
const claimsByApp = new WeakMap<IConstruct, Map<string, string>>();

/**
 * Refuses, at synth time, the two ways an inbox table can be shared wrongly: two consumers
 * with one `consumer` name on it (an event both consume would be applied for one of them
 * only), and the inbox table listed among a consumer's business tables (the handler could
 * then write inbox entries). Tables are told apart by name when it is known, else by construct.
 *
 * @example
 * ```ts
 * checkInboxTableUse(this, inboxTable, 'ledger', [accounts]); // throws on a second 'ledger'
 * ```
 */
export function checkInboxTableUse(
  consumer: IConstruct,
  inboxTable: ITable,
  consumerName: string,
  businessTables: readonly ITable[],
): void {
  const inbox = tableIdentity(inboxTable);
  if (businessTables.some((table) => tableIdentity(table) === inbox)) {
    throw new InboxValidationError(
      consumer,
      'the inbox table is also listed in businessTables; only the ' +
        'library writes inbox entries. Keep business data in its own table.',
    );
  }
  const root = consumer.node.root;
  const claims = claimsByApp.get(root) ?? new Map<string, string>();
  claimsByApp.set(root, claims);
  const claim = `${inbox}\u0000${consumerName}`;
  const previous = claims.get(claim);
  if (previous !== undefined) {
    throw new InboxValidationError(
      consumer,
      `${previous} already uses consumer "${consumerName}" ` +
        'on this inbox table, so an event both consume would be applied for one of them only. ' +
        'Give each consumer its own name.',
    );
  }
  claims.set(claim, consumer.node.path);
}

function tableIdentity(table: ITable): string {
  return Token.isUnresolved(table.tableName)
    ? `construct:${table.node.path}`
    : `name:${table.tableName}`;
}
