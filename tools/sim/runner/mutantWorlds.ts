import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../emulator/paths.js';
import type { WorldConfig } from '../world/WorldConfig.js';
import { loadCorpus } from './corpus.js';
import { MUTANTS, type Mutant, type MutantName } from './mutants.js';
import { replaySeed, runSimulation } from './runSimulation.js';

/**
 * The world that caught a mutant when the worlds were last recorded: its seed, its pinned
 * configuration and the failure line it gave. `npm test` replays it with the mutant applied, one
 * world per mutant instead of a search; the deep tier searches afresh.
 *
 * @example
 * ```ts
 * const world: MutantWorld = { seed: 75, config, failure: 'exactly-once: key evt-2 committed again …' };
 * ```
 */
export interface MutantWorld {
  readonly seed: number;
  readonly config: WorldConfig;
  readonly failure: string;
}

/** Where each mutant's recorded world lives. */
export const MUTANT_WORLDS_PATH = join(projectRoot, 'tools', 'sim', 'mutantWorlds.json');

/** How many seeds a search for a mutant's world runs, after the corpus, before it gives up. */
export const MUTANT_SEARCH_SEEDS = 400;

/** The command that records every mutant's world again. */
export const RECORD_MUTANT_WORLDS = 'npm run sim -- --record-mutants';

/**
 * The recorded worlds, by mutant name (a mutant added since the last recording has none).
 *
 * @example
 * ```ts
 * const world = loadMutantWorlds().noInboxCondition;
 * ```
 */
export function loadMutantWorlds(): Partial<Record<MutantName, MutantWorld>> {
  const file = JSON.parse(readFileSync(MUTANT_WORLDS_PATH, 'utf8')) as {
    worlds: Partial<Record<MutantName, MutantWorld>>;
  };
  return file.worlds;
}

/** Whether a failure line is the mutant's own invariant failing. */
export function caughtBy(mutant: Mutant, line: string): boolean {
  return line.startsWith(`${mutant.invariant}:`);
}

/**
 * Searches for a world that catches the mutant: the regression corpus first, then seeds from 1
 * in chunks, stopping at the first world whose failures include the mutant's invariant. Returns
 * that world with its configuration, or `undefined` when no world of the search catches it.
 *
 * @example
 * ```ts
 * const world = await findMutantWorld(MUTANTS.noInboxCondition);
 * ```
 */
export async function findMutantWorld(
  mutant: Mutant,
  seeds = MUTANT_SEARCH_SEEDS,
): Promise<MutantWorld | undefined> {
  const summary = await runSimulation({
    seeds,
    from: 1,
    corpus: true,
    mutant,
    print: false,
    stopAtFirst: (failures) => failures.some((line) => caughtBy(mutant, line)),
  });
  const caught = summary.failed.find((world) =>
    world.failures.some((line) => caughtBy(mutant, line)),
  );
  if (caught === undefined) return undefined;
  const config = caught.corpus
    ? loadCorpus().find((entry) => entry.seed === caught.seed)?.config
    : (await replaySeed(caught.seed, { mutant })).config;
  const failure = caught.failures.find((line) => caughtBy(mutant, line));
  if (config === undefined || failure === undefined) return undefined;
  return { seed: caught.seed, config, failure };
}

/**
 * Replays a mutant's recorded world with the mutant applied and returns the world's failure
 * lines (empty when the world no longer fails).
 *
 * @example
 * ```ts
 * const failures = await replayMutantWorld(MUTANTS.noInboxCondition, world);
 * ```
 */
export async function replayMutantWorld(mutant: Mutant, world: MutantWorld): Promise<string[]> {
  const report = await replaySeed(world.seed, { mutant, config: world.config });
  return [...report.failures];
}

/**
 * Searches a world for every mutant and writes them to {@link MUTANT_WORLDS_PATH}. Returns the
 * names of the mutants no world caught (the simulation no longer catches them); when there are
 * any, nothing is written.
 *
 * @example
 * ```ts
 * const missed = await recordMutantWorlds((line) => console.log(line));
 * ```
 */
export async function recordMutantWorlds(log: (line: string) => void): Promise<string[]> {
  const worlds: Partial<Record<MutantName, MutantWorld>> = {};
  const missed: string[] = [];
  for (const mutant of Object.values(MUTANTS)) {
    const world = await findMutantWorld(mutant);
    if (world === undefined) missed.push(mutant.name);
    else worlds[mutant.name as MutantName] = world;
    log(`${mutant.name}: ${world ? `seed ${world.seed}: ${world.failure}` : 'NOT CAUGHT'}`);
  }
  if (missed.length === 0) {
    writeFileSync(MUTANT_WORLDS_PATH, `${JSON.stringify({ worlds }, null, 2)}\n`);
  }
  return missed;
}
