import { describe, expect, it } from 'vitest';
import type { ChangeRecord } from '../../../src/testing/dynamo/SimDynamoDB.js';
import { SimDynamoDB } from '../../../src/testing/dynamo/SimDynamoDB.js';
import { Prng } from '../../../tools/sim/kernel/Prng.js';
import { checkEffects } from '../../../tools/sim/world/checkEffects.js';
import { WorldTables } from '../../../tools/sim/world/consumerFunction.js';
import { openCounters } from '../../../tools/sim/world/guardedCounter.js';
import {
  type PlannedEvent,
  Planted,
  UNKNOWN_COUNTER_ID,
} from '../../../tools/sim/world/paymentWorkload.js';
import { drawWorldConfig, WorldConsumer } from '../../../tools/sim/world/WorldConfig.js';
import type { EventCommits } from '../../../tools/sim/world/WorldEvents.js';
import type { WorldObservation } from '../../../tools/sim/world/WorldObservation.js';

const accounts = [{ accountId: 'acct-1', currency: 'EUR' }];

const unknownIncrement: PlannedEvent = {
  eventId: 'evt-1',
  accountId: UNKNOWN_COUNTER_ID,
  paymentId: 'pay-1',
  amountCents: 250,
  planted: Planted.UnknownCounter,
  body: JSON.stringify({ eventId: 'evt-1', counterId: UNKNOWN_COUNTER_ID, amount: 250 }),
  sendAtMillis: 0,
  againAtMillis: undefined,
};

/** A guarded counter world's end state: its counters opened, plus the given counter items. */
function counterWorld(totals: Record<string, number>): WorldObservation {
  const dynamo = new SimDynamoDB();
  dynamo.createTable({
    TableName: WorldTables.Counters,
    KeySchema: [{ AttributeName: 'counterId', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'counterId', AttributeType: 'S' }],
  });
  openCounters(dynamo, accounts);
  for (const [counterId, total] of Object.entries(totals)) {
    dynamo.putItem({
      TableName: WorldTables.Counters,
      Item: { counterId: { S: counterId }, total: { N: String(total) } },
    });
  }
  const config = {
    ...drawWorldConfig(new Prng(1).derive('config')),
    consumer: WorldConsumer.Counter,
    unknownCounterRate: 0.4,
  };
  const world = { config, workload: { accounts, events: [unknownIncrement] }, dynamo };
  return world as unknown as WorldObservation;
}

const nothingCommitted: EventCommits = { byEvent: new Map(), byTransaction: new Map() };

describe('checkEffects in a guarded counter world', () => {
  it('passes when the counter no one opened does not exist and nothing of it committed', () => {
    const failures: string[] = [];

    checkEffects(counterWorld({}), nothingCommitted, failures);

    expect(failures).toEqual([]);
  });

  it('fails when the counter no one opened exists, naming it and its total', () => {
    const failures: string[] = [];

    checkEffects(counterWorld({ [UNKNOWN_COUNTER_ID]: 250 }), nothingCommitted, failures);

    expect(failures).toEqual([
      `effects: counter ${UNKNOWN_COUNTER_ID} exists (total 250), though no one opened it`,
    ]);
  });

  it('fails when an increment of the unknown counter committed', () => {
    const failures: string[] = [];
    const commit = { tableName: WorldTables.Inbox } as ChangeRecord;
    const committed: EventCommits = {
      byEvent: new Map([[unknownIncrement, [commit]]]),
      byTransaction: new Map([[undefined, [unknownIncrement]]]),
    };

    checkEffects(counterWorld({ [UNKNOWN_COUNTER_ID]: 250 }), committed, failures);

    expect(failures).toContain('effects: evt-1 (unknown counter) committed');
  });
});
