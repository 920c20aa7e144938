import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'esbuild';
import { bundleForNode } from '../../cli/bundleForNode.js';
import { projectRoot } from '../../emulator/paths.js';
import type { Mutant } from './mutants.js';

/**
 * Bundles the simulation worker into one ES module with the library's source inside (so a run
 * loads one file, fast), optionally with a {@link Mutant} applied to that source in memory.
 *
 * @example
 * ```ts
 * const workerPath = await bundleSimulation(); // /tmp/sqs-inbox-sim-…/simWorker.mjs
 * ```
 */
export function bundleSimulation(options: { readonly mutant?: Mutant } = {}): Promise<string> {
  return bundleForNode('tools/sim/runner/simWorker.ts', {
    plugins: options.mutant ? [applyMutant(options.mutant)] : [],
  });
}

function applyMutant(mutant: Mutant): Plugin {
  const path = join(projectRoot, mutant.file);
  return {
    name: `mutant-${mutant.name}`,
    setup(build) {
      let applied = false;
      build.onEnd(() => {
        if (!applied) {
          throw new Error(
            `mutant ${mutant.name} no longer applies: ${mutant.file} is not part of the simulation (moved or renamed?)`,
          );
        }
      });
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path !== path) return undefined;
        applied = true;
        const source = readFileSync(path, 'utf8');
        const at = source.indexOf(mutant.find);
        if (at < 0 || source.indexOf(mutant.find, at + 1) >= 0) {
          throw new Error(
            `mutant ${mutant.name} no longer applies: its text must occur once in ${mutant.file}`,
          );
        }
        return { contents: source.replace(mutant.find, mutant.replace), loader: 'ts' };
      });
    },
  };
}
