import { describe, expect, it } from 'vitest';
import { Prng } from '../../../tools/sim/kernel/Prng.js';
import {
  Planted,
  planPaymentWorkload,
  UNKNOWN_COUNTER_ID,
} from '../../../tools/sim/world/paymentWorkload.js';
import { runWorld } from '../../../tools/sim/world/runWorld.js';
import {
  drawWorldConfig,
  type WorldConfig,
  WorldConsumer,
} from '../../../tools/sim/world/WorldConfig.js';
import { calmFaults } from '../../support/calmFaults.js';

/** A world is CPU work only; generous, as in runWorld.test.ts, for two shared cores. */
const WORLD_BOUND_MILLIS = 120_000;

/**
 * A guarded counter world without faults: twelve increments of two opened counters and the
 * unknown one, sent at once, one batch of ten then one of two, every record at once, commits
 * coalesced, under DynamoDB's conflict rules.
 */
function guardedWorld(seed: number): WorldConfig {
  const drawn = drawWorldConfig(new Prng(seed).derive('config'));
  return {
    ...drawn,
    consumer: WorldConsumer.Counter,
    fifo: false,
    events: 12,
    accounts: 2,
    upstreamDuplicateRate: 0,
    poisonRate: 0,
    invalidRate: 0,
    currencyMismatchRate: 0,
    paymentCollisionRate: 0,
    keyReuseRate: 0,
    redrives: 0,
    batchSize: 10,
    pollers: 1,
    recordConcurrency: 10,
    maxReceiveCount: 3,
    coalesce: true,
    conflictRules: true,
    sendSpreadMillis: 0,
    unknownCounterRate: 0.4,
    faults: calmFaults(drawn.faults),
  };
}

describe('guarded counters: a conditional ADD on a hot item', {
  timeout: WORLD_BOUND_MILLIS,
}, () => {
  it('addresses the unknown-counter events to the counter no one opened, and plants none without the rate', () => {
    const config = guardedWorld(40);
    const events = planPaymentWorkload(config, new Prng(40).derive('workload')).events;
    const unknown = events.filter((event) => event.planted === Planted.UnknownCounter);
    const { unknownCounterRate: _, ...unguarded } = config;
    const plain = planPaymentWorkload(unguarded, new Prng(40).derive('workload')).events;

    expect(unknown.length).toBeGreaterThanOrEqual(2);
    for (const event of unknown) {
      expect(event.accountId).toBe(UNKNOWN_COUNTER_ID);
      expect(JSON.parse(event.body)).toMatchObject({ counterId: UNKNOWN_COUNTER_ID });
    }
    expect(plain.some((event) => event.planted === Planted.UnknownCounter)).toBe(false);
    expect(plain.some((event) => event.accountId === UNKNOWN_COUNTER_ID)).toBe(false);
  });

  it('draws guarded counters only in counter worlds that coalesce, each with a burst of ten events at least; the other worlds plant no unknown-counter event', () => {
    const worlds = Array.from({ length: 2_000 }, (_, n) => {
      const random = new Prng(n + 1);
      const config = drawWorldConfig(random.derive('config'));
      return { config, events: planPaymentWorkload(config, random.derive('workload')).events };
    });
    const configs = worlds.map(({ config }) => config);
    const guarded = configs.filter((config) => config.unknownCounterRate !== undefined);
    const plantedUnguarded = worlds.filter(
      ({ config, events }) =>
        config.unknownCounterRate === undefined &&
        events.some((event) => event.planted === Planted.UnknownCounter),
    );

    expect(guarded.length).toBeGreaterThan(50);
    for (const config of guarded) {
      expect(config).toMatchObject({ consumer: WorldConsumer.Counter, coalesce: true });
      expect(config.events).toBeGreaterThanOrEqual(10);
      expect(config.sendSpreadMillis).toBeLessThanOrEqual(300);
    }
    expect(plantedUnguarded).toEqual([]);
  });

  it('without faults, dead-letters every increment of the unknown counter on its last receive, never creates it, and shares transactions among the others', async () => {
    const seed = 40;
    const config = guardedWorld(seed);
    const unknown = planPaymentWorkload(config, new Prng(seed).derive('workload')).events.filter(
      (event) => event.planted === Planted.UnknownCounter,
    );

    const result = await runWorld({ seed, config, keepTrace: true });

    expect(result.failures).toEqual([]);
    const deadLettered = result.trace.filter((line) =>
      line.includes('failed on its last receive; sent to the dead-letter queue'),
    );
    expect(deadLettered).toHaveLength(unknown.length);
    expect(result.sharedCommits.sent).toBeGreaterThan(0);
  });
});
