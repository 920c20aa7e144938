/**
 * `npm run sim`: seeded worlds of the whole protocol — the real library in simulated Lambda,
 * SQS and DynamoDB, with faults — checked against the invariants (tools/sim does the work).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Command, Option } from 'commander';
import { numberIn } from '../tools/cli/optionParsers.js';
import { CommandError, runCommand } from '../tools/cli/runCommand.js';
import { projectRoot } from '../tools/emulator/paths.js';
import { loadCorpus } from '../tools/sim/runner/corpus.js';
import { MUTANTS, type Mutant, type MutantName } from '../tools/sim/runner/mutants.js';
import {
  MUTANT_SEARCH_SEEDS,
  MUTANT_WORLDS_PATH,
  recordMutantWorlds,
} from '../tools/sim/runner/mutantWorlds.js';
import { replaySeed, runSimulation } from '../tools/sim/runner/runSimulation.js';
import { shrinkWorld } from '../tools/sim/runner/shrinkWorld.js';
import type { WorldConfig } from '../tools/sim/world/WorldConfig.js';

const options = new Command('npm run sim --')
  // One line for an unknown option, as every command here: no "(Did you mean --corpus?)".
  .showSuggestionAfterError(false)
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
  .option(
    '--shrink',
    'with --seed: shrink its failing configuration (fast-check) and print the smallest',
    false,
  )
  .option(
    '--record-mutants',
    'search a catching world for every mutant and record them (tools/sim/mutantWorlds.json), the worlds npm test replays',
    false,
  )
  .option('--config <file>', 'a JSON world configuration for every seed (as --seed prints it)')
  .option(
    '--nice <n>',
    "lower the workers' CPU priority (0–19) to use only idle CPU",
    numberIn('--nice', 0, 19),
    0,
  )
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
    shrink: boolean;
    recordMutants: boolean;
    nice: number;
  }>();

await runCommand('npm run sim', async () => {
  if (options.recordMutants) return recordMutants();
  const mutant = options.mutant === undefined ? undefined : MUTANTS[options.mutant];
  if (options.seed !== undefined && options.shrink) {
    const drawn = options.corpus ? corpusConfig(options.seed) : givenConfig();
    return shrink(
      options.seed,
      drawn ?? (await replaySeed(options.seed, { mutant })).config,
      mutant,
    );
  }
  if (options.seed !== undefined) {
    const config = options.corpus ? corpusConfig(options.seed) : givenConfig();
    const world = await replaySeed(options.seed, { mutant, config });
    console.log(world.trace.join('\n'));
    console.log(`\nconfig: ${JSON.stringify(world.config)}`);
    console.log(`trace hash: ${world.traceHash}`);
    const { rules, real, injected } = world.conflicts;
    console.log(
      `conflicts: ${rules ? `${real} real (conflict rules on)` : 'conflict rules off'}, ${injected} injected`,
    );
    console.log(
      world.failures.length === 0 ? 'passed' : `failed:\n  ${world.failures.join('\n  ')}`,
    );
    return world.failures.length === 0 ? 0 : 1;
  }
  const summary = await runSimulation({
    ...options,
    mutant,
    config: givenConfig(),
    niceness: options.nice,
  });
  return summary.failed.length > 0 || summary.nondeterministic.length > 0 ? 1 : 0;
});

async function recordMutants(): Promise<number> {
  const missed = await recordMutantWorlds((line) => console.log(line));
  if (missed.length > 0) {
    throw new CommandError(
      `no world of the corpus or of seeds 1–${MUTANT_SEARCH_SEEDS} catches ${missed.join(', ')}: ` +
        `the simulation no longer catches ${missed.length === 1 ? 'this mutant' : 'these mutants'}; ` +
        `${MUTANT_WORLDS_PATH} is left as it was.`,
    );
  }
  console.log(`recorded a world for each of the mutants in ${MUTANT_WORLDS_PATH}`);
  return 0;
}

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

async function shrink(
  seed: number,
  config: WorldConfig,
  mutant: Mutant | undefined,
): Promise<number> {
  const shrunk = await shrinkWorld(seed, config, { mutant });
  const path = join(projectRoot, '.cache', `sim-shrunk-${seed}.json`);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(shrunk.config, null, 2)}\n`);
  console.log(
    `shrunk in ${shrunk.worlds} worlds; the smallest failing configuration is in ${path}:`,
  );
  console.log(JSON.stringify(shrunk.config));
  console.log(`failure: ${shrunk.failure}`);
  console.log(
    `replay: npm run sim -- --seed ${seed} --config ${path}${mutant ? ` --mutant ${mutant.name}` : ''}`,
  );
  return 1;
}
