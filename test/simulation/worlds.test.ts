import { describe, it } from 'vitest';
import { expectWorldsPassed, sim } from './support/simCommand.js';

/** Seeds of the default mix `npm test` runs, with the regression corpus (the deep tier: 100,000). */
const SEEDS = 3_000;

describe('npm run sim', () => {
  it(`passes ${SEEDS.toLocaleString('en-US')} seeded worlds of the default mix and the regression corpus`, async () => {
    expectWorldsPassed(await sim(['--seeds', String(SEEDS), '--corpus']), SEEDS);
  });
});
