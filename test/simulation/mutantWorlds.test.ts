import { describe, expect, it } from 'vitest';
import { MUTANTS } from '../../tools/sim/runner/mutants.js';
import {
  caughtBy,
  loadMutantWorlds,
  MUTANT_WORLDS_PATH,
  RECORD_MUTANT_WORLDS,
  replayMutantWorld,
} from '../../tools/sim/runner/mutantWorlds.js';

const worlds = loadMutantWorlds();

describe('each deliberate bug in the library fails the simulation in its recorded world (the deep tier searches afresh)', () => {
  it('has a recorded world for every mutant, and none for a mutant that is gone', () => {
    const hint = `record them: ${RECORD_MUTANT_WORLDS} (${MUTANT_WORLDS_PATH})`;
    expect(Object.keys(worlds).sort(), hint).toEqual(Object.keys(MUTANTS).sort());
  });

  it.concurrent.each(Object.values(MUTANTS))(
    'fails with the mutant $name: $description',
    async (mutant) => {
      const world = worlds[mutant.name as keyof typeof MUTANTS];
      if (world === undefined) {
        expect.fail(`no recorded world for ${mutant.name}: ${RECORD_MUTANT_WORLDS}`);
      }
      const failures = await replayMutantWorld(mutant, world);

      const caught = failures.find((line) => caughtBy(mutant, line));
      console.log(
        `[simulation] mutant ${mutant.name}: seed ${world.seed}: ${caught ?? 'NOT CAUGHT'}`,
      );
      expect(
        caught,
        `the recorded world (seed ${world.seed}) no longer fails ${mutant.invariant}: the library's ` +
          `interleavings moved; ${RECORD_MUTANT_WORLDS} searches a new one (if none is found, the ` +
          `simulation no longer catches this bug); commit tools/sim/mutantWorlds.json`,
      ).toBeDefined();
      expect(failures.filter((line) => line.startsWith('the simulator itself threw'))).toEqual([]);
    },
  );
});
