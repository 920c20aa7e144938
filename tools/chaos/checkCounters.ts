import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { businessTableVariable, InboxEnvironment, inboxPk } from 'sqs-inbox/constants';
import { bodyHash, type InvariantResult, peekAll, scanAll } from '../local/checkInvariants.js';
import type { LocalMapping } from '../local/provisionFromTemplate.js';
import type { CounterIncremented } from './counterConsumer.js';
import { COUNTERS_TABLE } from './counterConsumer.js';

/**
 * The naive counter consumer's invariants: each counter holds the sum of its distinct events
 * (a copy applied twice would show), and every event committed — its inbox entry with its
 * body's hash — with nothing in its DLQ (it is sent no bad input).
 *
 * @example
 * ```ts
 * const results = await checkCounters(clients, counterMapping, traffic.counterPlan().events);
 * ```
 */
export async function checkCounters(
  clients: { documentClient: DynamoDBDocumentClient; sqs: SQSClient },
  mapping: LocalMapping,
  events: readonly CounterIncremented[],
): Promise<InvariantResult[]> {
  const env = mapping.environment;
  const [counters, inbox, dead] = await Promise.all([
    scanAll(clients.documentClient, env[businessTableVariable(COUNTERS_TABLE)] ?? ''),
    scanAll(clients.documentClient, env[InboxEnvironment.TableName] ?? ''),
    peekAll(clients.sqs, mapping.deadLetterQueueUrl),
  ]);
  const expected = new Map<string, number>();
  for (const e of events) expected.set(e.counterId, (expected.get(e.counterId) ?? 0) + e.amount);
  const totals = new Map(counters.map((c) => [String(c.counterId), Number(c.total)]));
  const wrong = [...new Set([...expected.keys(), ...totals.keys()])].filter(
    (id) => (totals.get(id) ?? 0) !== (expected.get(id) ?? 0),
  );
  const hashes = new Map(inbox.map((entry) => [String(entry.pk), entry.payloadHash]));
  const uncommitted = events.filter(
    (e) => hashes.get(inboxPk('counter', e.eventId)) !== bodyHash(JSON.stringify(e)),
  );
  return [
    {
      name: 'counter (no condition of its own): each total = sum of its distinct events',
      holds: wrong.length === 0,
      detail: wrong.length
        ? `wrong: ${wrong.map((id) => `${id} ${totals.get(id) ?? 0} ≠ ${expected.get(id) ?? 0}`).join(', ')}`
        : `${expected.size} counters, ${events.length} events`,
    },
    {
      name: 'counter: every event committed, nothing in its DLQ',
      holds: uncommitted.length === 0 && dead.length === 0,
      detail: `${events.length - uncommitted.length} of ${events.length} committed, ${dead.length} in its DLQ`,
      figures: { committed: events.length - uncommitted.length },
    },
  ];
}
