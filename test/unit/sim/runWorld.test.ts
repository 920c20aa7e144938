import { describe, expect, it } from 'vitest';
import { Prng } from '../../../tools/sim/kernel/Prng.js';
import { runWorld } from '../../../tools/sim/world/runWorld.js';
import { drawWorldConfig, type WorldConfig } from '../../../tools/sim/world/WorldConfig.js';
import { calmFaults } from '../../support/calmFaults.js';

const calm = (config: WorldConfig): WorldConfig => ({
  ...config,
  faults: calmFaults(config.faults),
});

/**
 * A world is CPU work only (no I/O, no timers): forty of them take about two seconds on an idle
 * core, and several times that beside other heavy jobs on two shared cores, past the unit
 * project's 5 s default. Generous, so only a world that never ends meets it; not a speed target.
 */
const WORLDS_BOUND_MILLIS = 120_000;

describe('a simulated world', { timeout: WORLDS_BOUND_MILLIS }, () => {
  it('replays: one seed gives one trace, in every run', async () => {
    const first = await runWorld({ seed: 11, keepTrace: true });
    const second = await runWorld({ seed: 11, keepTrace: true });

    expect(second.trace).toEqual(first.trace);
    expect(second.traceHash).toBe(first.traceHash);
    expect(first.steps).toBeGreaterThan(10);
  });

  it('passes its invariants on seeds of the default mix', async () => {
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, n) => runWorld({ seed: n + 1 })),
    );

    expect(results.flatMap((r) => r.failures.map((f) => `seed ${r.seed}: ${f}`))).toEqual([]);
  });

  it('without faults, commits every payment once and dead-letters exactly what was planted', async () => {
    const config = calm({
      ...drawWorldConfig(new Prng(5)),
      events: 12,
      upstreamDuplicateRate: 0.5,
    });

    const result = await runWorld({ seed: 5, config, keepTrace: true });

    expect(result.failures).toEqual([]);
    expect(result.trace.some((line) => line.includes('applies TransactWriteItems'))).toBe(true);
  });

  it('in an outbox world without faults, relays every credit across four shards, applies each once downstream in commit order per account, and dead-letters at the relay only what the destination refuses', async () => {
    const config: WorldConfig = calm({
      ...drawWorldConfig(new Prng(5)),
      consumer: 'ledger',
      events: 24,
      accounts: 2,
      poisonRate: 0,
      invalidRate: 0,
      currencyMismatchRate: 0,
      upstreamDuplicateRate: 0.5,
      outbox: {
        fifo: true,
        shards: 4,
        relayBatchSize: 10,
        relayConcurrency: 10,
        refuseRate: 0.2,
        downstreamBatchSize: 10,
      },
    });

    const result = await runWorld({ seed: 5, config, keepTrace: true });

    expect(result.failures).toEqual([]);
    const applied = (queue: string) =>
      result.trace.filter((line) => line.includes(`applies SendMessage to ${queue} `)).length;
    expect(applied('credits.fifo')).toBeGreaterThan(10);
    expect(applied('ledger-relay-dlq')).toBeGreaterThan(0);
  });

  it('with a retry backoff, gives its retryable failures delays within the cap, which SQS applies before they come back', async () => {
    const backoff = { firstDelaySeconds: 1, maxDelaySeconds: 3 };
    const config: WorldConfig = {
      ...drawWorldConfig(new Prng(58).derive('config')),
      retry: { backoff },
    };

    const result = await runWorld({ seed: 58, config, keepTrace: true });

    const delays = result.trace.flatMap((line) => {
      const delay = /message retry delayed \(.+\): (\d+) s, backoff$/.exec(line);
      return delay ? [Number(delay[1])] : [];
    });
    expect(result.failures).toEqual([]);
    expect(delays.length).toBeGreaterThan(5);
    expect(Math.max(...delays)).toBeLessThanOrEqual(backoff.maxDelaySeconds);
  });

  it("gives the processor the world's leaseMillis: a 1 s step lease is renewed within the second", async () => {
    const config: WorldConfig = {
      ...drawWorldConfig(new Prng(5)),
      consumer: 'notifier',
      events: 3,
      leaseMillis: 1_000,
    };

    const result = await runWorld({ seed: 5, config, keepTrace: true });

    const beats = result.trace
      .map((line) => /^\s*([\d.]+)s (\S+) lease heartbeat/.exec(line))
      .filter((match) => match !== null)
      .map(([, seconds, actor]) => ({ seconds: Number(seconds), actor }));
    const gaps = beats.slice(1).flatMap((beat, n) => {
      const before = beats[n];
      return before !== undefined && before.actor === beat.actor
        ? [beat.seconds - before.seconds]
        : [];
    });
    expect(gaps.length).toBeGreaterThan(3);
    expect(Math.max(...gaps)).toBeLessThan(1);
  });

  it('fails a world whose records fail with no fault to explain it (a function timeout too short)', async () => {
    const config = calm({
      ...drawWorldConfig(new Prng(6)),
      events: 3,
      functionTimeoutMillis: 1,
      visibilityTimeoutMillis: 6,
    });

    const result = await runWorld({ seed: 6, config });

    expect(result.failures.join('\n')).toMatch(
      /no fault slowed|reached the function timeout|do not explain/,
    );
  });
});
