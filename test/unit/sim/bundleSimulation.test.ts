import { describe, expect, it } from 'vitest';
import { bundleSimulation } from '../../../tools/sim/runner/bundleSimulation.js';
import { MUTANTS } from '../../../tools/sim/runner/mutants.js';

describe('bundleSimulation with a mutant', () => {
  it('refuses a mutant whose file the simulation no longer loads, instead of running unmutated', async () => {
    const moved = { ...MUTANTS.noSkewAllowance, file: 'src/constants.ts' };

    await expect(bundleSimulation({ mutant: moved })).rejects.toThrow(
      /noSkewAllowance no longer applies: src\/constants\.ts is not part of the simulation/,
    );
  });

  it('refuses a mutant whose text its file no longer holds', async () => {
    const stale = { ...MUTANTS.noSkewAllowance, find: 'clockSkewMillis: 12_345,' };

    await expect(bundleSimulation({ mutant: stale })).rejects.toThrow(
      /noSkewAllowance no longer applies: its text must occur once/,
    );
  });
});
