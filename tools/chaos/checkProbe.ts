import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { OPERATION_ITEM_PREFIX } from '../../src/constants/values.js';
import { type InvariantResult, scanAll } from '../local/checkInvariants.js';

/**
 * Checks the probe the chaos workers add to every transaction (`ADD commits :one` on the
 * event's inbox key): each key with an inbox entry committed exactly once, and no transaction
 * committed without its inbox entry. Unlike the business invariants, this does not lean on
 * the reference handlers' own conditions (a ledger entry or an order written only once).
 *
 * @example
 * ```ts
 * const result = await checkProbe(documentClient, { probe: 'chaos-probe', inbox: 'inbox' });
 * ```
 */
export async function checkProbe(
  client: DynamoDBDocumentClient,
  tables: { readonly probe: string; readonly inbox: string },
): Promise<InvariantResult> {
  const [probes, entries] = await Promise.all([
    scanAll(client, tables.probe),
    scanAll(client, tables.inbox),
  ]);
  // The operator's lock and audit items (`#ops#…`) share the inbox table; they are no entries.
  const inboxKeys = new Set(
    entries.map((entry) => String(entry.pk)).filter((pk) => !pk.startsWith(OPERATION_ITEM_PREFIX)),
  );
  const counts = new Map(probes.map((probe) => [String(probe.pk), Number(probe.commits)]));
  const twice = [...counts].filter(([, commits]) => commits !== 1).map(([pk]) => pk);
  const withoutEntry = [...counts.keys()].filter((pk) => !inboxKeys.has(pk));
  const withoutProbe = [...inboxKeys].filter((pk) => !counts.has(pk));
  const wrong = [...twice, ...withoutEntry, ...withoutProbe];
  return {
    name: 'each inbox key committed exactly one transaction (probe counter = 1 per inbox entry)',
    holds: wrong.length === 0,
    detail: wrong.length
      ? `${twice.length} keys committed more than once, ${withoutEntry.length} commits without an inbox entry, ${withoutProbe.length} entries without a commit: ${wrong.slice(0, 3).join(', ')}`
      : `${counts.size} keys, one commit each`,
  };
}
