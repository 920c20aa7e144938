import fc from 'fast-check';
import type { WorldConfig } from '../world/WorldConfig.js';
import { bundleSimulation } from './bundleSimulation.js';
import type { Mutant } from './mutants.js';
import { WorkerPool } from './WorkerPool.js';

/**
 * What shrinking a failing world found: the smallest configuration that still fails with the
 * same seed, its first failure, and how many worlds it took.
 *
 * @example
 * ```ts
 * const { config, failure } = await shrinkWorld(1434, failingConfig);
 * ```
 */
export interface ShrunkWorld {
  readonly seed: number;
  readonly config: WorldConfig;
  readonly failure: string;
  readonly worlds: number;
}

const MAX_SHRINK_WORLDS = 2_000;

/**
 * Shrinks a failing world's configuration with fast-check: fewer events, accounts, pollers,
 * redrives, smaller batches, each fault rate down to zero, as long as the world (same seed,
 * same queue type and consumer) still fails. The seed stays: it is opaque, the configuration is
 * what a reader can understand. Throws when the configuration does not fail to begin with.
 *
 * @example
 * ```ts
 * const shrunk = await shrinkWorld(seed, config, { mutant: MUTANTS.noInboxCondition });
 * console.log(JSON.stringify(shrunk.config));
 * ```
 */
export async function shrinkWorld(
  seed: number,
  config: WorldConfig,
  options: { readonly mutant?: Mutant } = {},
): Promise<ShrunkWorld> {
  const pool = await WorkerPool.start(await bundleSimulation({ mutant: options.mutant }), 1);
  let worlds = 0;
  const failuresOf = async (candidate: WorldConfig) => {
    worlds++;
    const reply = await pool.run({
      type: 'run',
      seeds: [seed],
      hashesOf: [],
      keepTrace: false,
      config: candidate,
    });
    return reply.results[0]?.failures ?? [];
  };
  try {
    const first = await failuresOf(config);
    if (first.length === 0)
      throw new Error(`seed ${seed} passes with this configuration: nothing to shrink`);
    let smallest = { config, failure: first[0] ?? '' };
    await fc.check(
      fc.asyncProperty(smallerThan(config), async (smaller) => {
        const candidate = withSmaller(config, smaller);
        // Past the budget every candidate passes, which ends the shrinking where it stands.
        if (worlds >= MAX_SHRINK_WORLDS) return true;
        const failures = await failuresOf(candidate);
        if (failures.length > 0) smallest = { config: candidate, failure: failures[0] ?? '' };
        return failures.length === 0;
      }),
      // The failing configuration itself is the example fast-check shrinks from.
      { examples: [[sizesOf(config)]], numRuns: 1, seed },
    );
    return { seed, ...smallest, worlds };
  } finally {
    pool.stop();
  }
}

/** The parts of a configuration that shrink: sizes, and rates that may drop to zero. */
type Sizes = ReturnType<typeof sizesOf>;

function sizesOf(config: WorldConfig) {
  const { faults } = config;
  return {
    events: config.events,
    accounts: config.accounts,
    upstreamDuplicateRate: config.upstreamDuplicateRate,
    poisonRate: config.poisonRate,
    invalidRate: config.invalidRate,
    currencyMismatchRate: config.currencyMismatchRate,
    paymentCollisionRate: config.paymentCollisionRate,
    redrives: config.redrives,
    batchSize: config.batchSize,
    pollers: config.pollers,
    recordConcurrency: config.recordConcurrency,
    faults: {
      killPerInvocation: faults.killPerInvocation,
      crashPointPerInvocation: faults.crashPointPerInvocation,
      requestLost: faults.requestLost,
      responseLost: faults.responseLost,
      requestDuplicated: faults.requestDuplicated,
      requestClogged: faults.requestClogged,
      transactionConflict: faults.transactionConflict,
      throttling: faults.throttling,
      slowInvocation: faults.slowInvocation,
      staleDeleteKept: faults.staleDeleteKept,
    },
  };
}

function withSmaller(config: WorldConfig, smaller: Sizes): WorldConfig {
  return { ...config, ...smaller, faults: { ...config.faults, ...smaller.faults } };
}

/**
 * The sizes of configurations no larger than `config`: counts from their minimum up to the
 * failing one's, each rate either zero or the failing one's (fast-check shrinks towards the
 * smaller).
 */
function smallerThan(config: WorldConfig): fc.Arbitrary<Sizes> {
  const sizes = sizesOf(config);
  const upTo = (min: number, max: number) => fc.integer({ min: Math.min(min, max), max });
  const rate = (value: number) => fc.constantFrom(0, value);
  const { faults } = sizes;
  return fc.record({
    events: upTo(1, sizes.events),
    accounts: upTo(1, sizes.accounts),
    upstreamDuplicateRate: rate(sizes.upstreamDuplicateRate),
    poisonRate: rate(sizes.poisonRate),
    invalidRate: rate(sizes.invalidRate),
    currencyMismatchRate: rate(sizes.currencyMismatchRate),
    paymentCollisionRate: rate(sizes.paymentCollisionRate),
    redrives: upTo(0, sizes.redrives),
    batchSize: upTo(1, sizes.batchSize),
    pollers: upTo(1, sizes.pollers),
    recordConcurrency: upTo(1, sizes.recordConcurrency),
    faults: fc.record({
      killPerInvocation: rate(faults.killPerInvocation),
      crashPointPerInvocation: rate(faults.crashPointPerInvocation),
      requestLost: rate(faults.requestLost),
      responseLost: rate(faults.responseLost),
      requestDuplicated: rate(faults.requestDuplicated),
      requestClogged: rate(faults.requestClogged),
      transactionConflict: rate(faults.transactionConflict),
      throttling: rate(faults.throttling),
      slowInvocation: rate(faults.slowInvocation),
      staleDeleteKept: rate(faults.staleDeleteKept),
    }),
  });
}
