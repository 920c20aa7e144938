import { describe, expect, it } from 'vitest';
import { DynamoDBInboxStore } from '../../../src/index.js';
import { HOLD_SECONDS } from '../../../src/operations/receiveAll.js';
import { redriveDeadLetters } from '../../../src/operations/redriveDeadLetters.js';
import { MessageSource } from '../../../src/sources/MessageSource.js';
import { SimDocumentClient } from '../../../src/testing/dynamo/SimDocumentClient.js';
import { SimDynamoDB } from '../../../src/testing/dynamo/SimDynamoDB.js';
import { Prng } from '../../../tools/sim/kernel/Prng.js';
import { SimQueue } from '../../../tools/sim/sqs/SimQueue.js';
import { SimRedriveQueue } from '../../../tools/sim/sqs/SimRedriveQueue.js';

const START_MILLIS = Date.UTC(2026, 10, 24, 10, 0, 0);
const DEAD_LETTERS = 4;
/** How long each message takes by the run's clock: the run outlasts one hold. */
const MILLIS_PER_MESSAGE = 120_000;

/**
 * A dry run over a simulated DLQ (the simulation's queue: visibility by its clock, as SQS's) of
 * messages with no source, each one kept; the queue and the run share one clock that only the
 * test moves, two minutes per message.
 */
async function slowDryRun() {
  let clockMillis = START_MILLIS;
  const dlq = new SimQueue({
    name: 'ledger-dlq',
    fifo: false,
    visibilityTimeoutMillis: 30_000,
    random: new Prng(1),
  });
  for (let n = 0; n < DEAD_LETTERS; n++) {
    dlq.send({ body: JSON.stringify({ eventId: `evt-${n}` }) }, START_MILLIS - 60_000);
  }
  const dynamo = new SimDynamoDB();
  dynamo.createTable({
    TableName: 'inbox',
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
  });
  const client = new SimDocumentClient({ dynamo }).documentClient;
  /** After each message: how many of the DLQ's messages another reader could receive. */
  const visibleToOthers: number[] = [];
  const summary = await redriveDeadLetters({
    queue: new SimRedriveQueue(dlq, [], () => clockMillis, 0),
    reading: {
      store: new DynamoDBInboxStore({ tableName: 'inbox', client }),
      consumer: 'ledger',
      sources: [MessageSource.Sqs],
      key: ({ body }) => (body as { eventId: string }).eventId,
    },
    ttlSeconds: 1_987_200,
    operationId: 'slow-run',
    apply: false,
    runtime: {
      now: () => clockMillis,
      sleep: async (millis) => {
        clockMillis += millis;
      },
    },
    onMessage: () => {
      clockMillis += MILLIS_PER_MESSAGE;
      visibleToOthers.push(dlq.messages.filter((m) => m.visibleAtMillis <= clockMillis).length);
    },
  });
  return { summary, dlq, visibleToOthers, elapsedMillis: clockMillis - START_MILLIS };
}

describe('redriveDeadLetters, on its runtime clock', () => {
  it('extends its holds by the runtime’s clock, not the system’s: a run longer than one hold keeps every message hidden throughout, receives each once, and releases them at the end', async () => {
    const { summary, dlq, visibleToOthers, elapsedMillis } = await slowDryRun();

    expect(elapsedMillis).toBeGreaterThan(HOLD_SECONDS * 1000);
    expect(summary).toMatchObject({ messages: DEAD_LETTERS, kept: DEAD_LETTERS });
    expect(visibleToOthers).toEqual(Array(DEAD_LETTERS).fill(0));
    expect(dlq.messages.map((m) => m.receiveCount)).toEqual(Array(DEAD_LETTERS).fill(1));
    expect(
      dlq.messages.filter((m) => m.visibleAtMillis <= START_MILLIS + elapsedMillis),
    ).toHaveLength(DEAD_LETTERS);
  });
});
