import { describe, expect, it } from 'vitest';
import { MUTANT_SEARCH_SEEDS } from '../../tools/sim/runner/mutantWorlds.js';
import { expectWorldsPassed, sim } from './support/simCommand.js';

/**
 * Seeds of the default mix `npm test` runs, with the regression corpus (the deep tier: 100,000).
 * They include every seed a mutant's search can record, so each recorded world also passes here
 * without its mutant.
 */
const SEEDS = 3_000;

describe('npm run sim', () => {
  it('covers every seed a mutant’s recorded world can have', () => {
    expect(MUTANT_SEARCH_SEEDS).toBeLessThanOrEqual(SEEDS);
  });

  it(`passes ${SEEDS.toLocaleString('en-US')} seeded worlds of the default mix and the regression corpus`, async () => {
    expectWorldsPassed(await sim(['--seeds', String(SEEDS), '--corpus']), SEEDS);
  });
});
