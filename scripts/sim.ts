/**
 * `npm run sim`: seeded worlds of the whole protocol — the real library in simulated Lambda,
 * SQS and DynamoDB, with faults — checked against the invariants (tools/sim does the work).
 */
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { numberIn } from '../tools/cli/optionParsers.js';
import { CommandError, runCommand } from '../tools/cli/runCommand.js';
import { loadCorpus } from '../tools/sim/runner/corpus.js';
import { MUTANTS, type MutantName } from '../tools/sim/runner/mutants.js';
import { replaySeed, runSimulation } from '../tools/sim/runner/runSimulation.js';
import type { WorldConfig } from '../tools/sim/world/WorldConfig.js';

const options = new Command('npm run sim --')
  .description(
    'Run seeded simulated worlds (the real library, simulated AWS, injected faults) and check the invariants; --seed replays one world and prints its trace.',
  )
  .option('--seeds <n>', 'worlds to run', numberIn('--seeds', 1), 1000)
  .option('--from <seed>', 'first seed of the run', numberIn('--from', 0), 1)
  .option('--seed <seed>', 'replay one world and print its trace', numberIn('--seed', 0))
  .option(
    '--corpus',
    'also run the regression corpus (tools/sim/corpus.json); with --seed, replay that world of the corpus',
    false,
  )
  .option('--config <file>', 'a JSON world configuration for every seed (as --seed prints it)')
  .option('--workers <n>', 'processes (default: one per core)', numberIn('--workers', 1, 64))
  .addOption(
    new Option('--mutant <name>', 'run with a deliberate bug in the library').choices(
      Object.keys(MUTANTS),
    ),
  )
  .parse()
  .opts<{
    seeds: number;
    from: number;
    seed?: number;
    corpus: boolean;
    workers?: number;
    mutant?: MutantName;
    config?: string;
  }>();

await runCommand('npm run sim', async () => {
  const mutant = options.mutant === undefined ? undefined : MUTANTS[options.mutant];
  if (options.seed !== undefined) {
    const config = options.corpus ? corpusConfig(options.seed) : givenConfig();
    const world = await replaySeed(options.seed, { mutant, config });
    console.log(world.trace.join('\n'));
    console.log(`\nconfig: ${JSON.stringify(world.config)}`);
    console.log(`trace hash: ${world.traceHash}`);
    console.log(
      world.failures.length === 0 ? 'passed' : `failed:\n  ${world.failures.join('\n  ')}`,
    );
    return world.failures.length === 0 ? 0 : 1;
  }
  const summary = await runSimulation({ ...options, mutant, config: givenConfig() });
  return summary.failed.length > 0 || summary.nondeterministic.length > 0 ? 1 : 0;
});

function corpusConfig(seed: number) {
  const entry = loadCorpus().find((candidate) => candidate.seed === seed);
  if (entry === undefined) {
    throw new CommandError(`the corpus (tools/sim/corpus.json) has no world with seed ${seed}.`);
  }
  return entry.config;
}

function givenConfig(): WorldConfig | undefined {
  if (options.config === undefined) return undefined;
  try {
    return JSON.parse(readFileSync(options.config, 'utf8')) as WorldConfig;
  } catch (error) {
    throw new CommandError(
      `--config ${options.config}: not a readable JSON file (${(error as Error).message}).`,
    );
  }
}
