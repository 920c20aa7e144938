import { describe, expect, it } from 'vitest';
import { MUTANTS } from '../../../tools/sim/runner/mutants.js';
import { caughtBy, MUTANT_SEARCH_SEEDS } from '../../../tools/sim/runner/mutantWorlds.js';
import { replaySeed, runSimulation } from '../../../tools/sim/runner/runSimulation.js';
import { shrinkWorld } from '../../../tools/sim/runner/shrinkWorld.js';

describe('the simulation catches deliberate bugs in the library', () => {
  it.each(Object.values(MUTANTS))('fails with the mutant $name: $description', async (mutant) => {
    const catches = (line: string) => caughtBy(mutant, line);
    const summary = await runSimulation({
      seeds: MUTANT_SEARCH_SEEDS,
      from: 1,
      corpus: true,
      mutant,
      print: false,
      stopAtFirst: (failures) => failures.some(catches),
    });

    const caught = summary.failed.find((failure) => failure.failures.some(catches));
    console.log(
      `[simulation] mutant ${mutant.name}: caught by ${caught?.corpus ? 'the corpus world' : 'seed'} ` +
        `${caught?.seed} (${summary.seeds} seeds run): ${caught?.failures.find(catches)}`,
    );
    expect(caught).toBeDefined();
    const lines = summary.failed.flatMap((failure) => failure.failures);
    expect(lines.filter((line) => line.startsWith('the simulator itself threw'))).toEqual([]);
    expect(summary.nondeterministic).toEqual([]);
  });
});

describe('shrinking', () => {
  it('shrinks a failing world with fast-check to a smaller configuration that still fails', async () => {
    const failing = await replaySeed(4, { mutant: MUTANTS.noInboxCondition });
    expect(failing.failures).not.toEqual([]);

    const shrunk = await shrinkWorld(4, failing.config, { mutant: MUTANTS.noInboxCondition });

    console.log(
      `[simulation] seed 4 (mutant noInboxCondition) shrunk in ${shrunk.worlds} worlds from ${failing.config.events} events to ${shrunk.config.events}: ${shrunk.failure}`,
    );
    expect(shrunk.config.events).toBeLessThan(failing.config.events);
    expect(shrunk.failure).toMatch(/exactly-once|effects/);
  });
});
