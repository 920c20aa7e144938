import { availableParallelism } from 'node:os';
import type { WorldConfig } from '../world/WorldConfig.js';
import { bundleSimulation } from './bundleSimulation.js';
import { type CorpusEntry, loadCorpus } from './corpus.js';
import type { Mutant } from './mutants.js';
import { WorkerPool } from './WorkerPool.js';
import type { ConflictCounts, WorkerReply } from './workerProtocol.js';

/**
 * Options of {@link runSimulation}.
 *
 * @example
 * ```ts
 * await runSimulation({ seeds: 100_000, from: 1 });
 * ```
 */
export interface SimulationOptions {
  /** How many seeded worlds to run, from `from`. */
  readonly seeds: number;
  readonly from: number;
  /** Also run the regression corpus (tools/sim/corpus.json), each world with its pinned configuration. */
  readonly corpus?: boolean;
  readonly workers?: number;
  readonly mutant?: Mutant;
  /** One configuration for every seed, instead of the one each seed draws. */
  readonly config?: WorldConfig;
  /** Lower the workers' CPU priority (0–19), to use only the CPU other work leaves idle. */
  readonly niceness?: number;
  /** Print the progress line and the summary (default true). */
  readonly print?: boolean;
  /**
   * Stop at the first world whose failures this accepts: the corpus runs first, then the seeds
   * in small chunks, and no chunk starts once one is found (a mutant needs one catching world).
   */
  readonly stopAtFirst?: (failures: readonly string[]) => boolean;
}

/**
 * What a simulation run found.
 *
 * @example
 * ```ts
 * const { failed, seedsPerSecond } = await runSimulation({ seeds: 1000, from: 1 });
 * ```
 */
export interface SimulationSummary {
  /** Seeds run (the corpus's worlds come on top); fewer than asked when it stopped at a find. */
  readonly seeds: number;
  /** Worlds that passed, the corpus's included. */
  readonly passed: number;
  readonly failed: ReadonlyArray<{
    readonly seed: number;
    readonly failures: readonly string[];
    /** A world of the corpus (replayed with `--corpus --seed`). */
    readonly corpus: boolean;
  }>;
  /** Worlds of the corpus run (their failures are in `failed` too). */
  readonly corpus: number;
  /** Seeds whose trace differed when run again: the run is not a function of its seed. */
  readonly nondeterministic: readonly number[];
  readonly seedsPerSecond: number;
  readonly steps: number;
  /** The seeds' transactions that committed several messages (`coalesce`), and how many were cancelled. */
  readonly sharedCommits: { readonly sent: number; readonly cancelled: number };
  /** The seeds' conflicts: real ones (worlds with DynamoDB's conflict rules on) and injected ones. */
  readonly conflicts: ConflictCounts;
  readonly elapsedMillis: number;
}

const CHUNK_SEEDS = 100;
/** Chunks of a run that stops at its first find: small, so that little runs past it. */
const SEARCH_CHUNK_SEEDS = 20;
const GUARD_SAMPLE_EVERY = 97;
const GUARD_MAX_FAILING = 20;

/**
 * Runs seeded worlds sharded over worker processes, with a progress line, then the
 * determinism guard (each failing seed and about 1% of the passing ones run again, their
 * traces compared), and prints `N passed, M failed` with the command that replays each failure.
 *
 * @example
 * ```ts
 * const summary = await runSimulation({ seeds: 10_000, from: 1 });
 * process.exitCode = summary.failed.length > 0 ? 1 : 0;
 * ```
 */
export async function runSimulation(options: SimulationOptions): Promise<SimulationSummary> {
  const print = options.print ?? true;
  const seeds = range(options.from, options.seeds);
  const corpus = options.corpus ? loadCorpus() : [];
  const pool = await WorkerPool.start(
    await bundleSimulation({ mutant: options.mutant }),
    options.workers ?? availableParallelism(),
    options.niceness,
  );
  const startedMillis = performance.now();
  if (print) printStart(seeds.length, corpus.length, pool.size, options.mutant);
  try {
    const stop = options.stopAtFirst;
    const corpusFirst = stop === undefined ? [] : await runCorpus(pool, corpus);
    const found = corpusFirst.some((report) => stop?.(report.failures));
    const replies = await runSeeds(pool, found ? [] : seeds, options, print);
    const elapsedMillis = performance.now() - startedMillis;
    const corpusResults = stop === undefined ? await runCorpus(pool, corpus) : corpusFirst;
    const results = replies.flatMap((reply) => reply.results);
    const seedsRun = sum(replies, (r) => r.seeds);
    const summary: SimulationSummary = {
      seeds: seedsRun,
      passed:
        sum(replies, (r) => r.passed) + corpusResults.filter((r) => r.failures.length === 0).length,
      failed: [
        ...corpusResults.filter((r) => r.failures.length > 0).map((r) => failure(r, true)),
        ...results.filter((r) => r.failures.length > 0).map((r) => failure(r, false)),
      ],
      corpus: corpus.length,
      nondeterministic: [
        ...(await guardDeterminism(pool, results, options.config)),
        ...(await guardCorpus(pool, corpus, corpusResults)),
      ],
      seedsPerSecond: seedsRun / (elapsedMillis / 1000),
      steps: sum(replies, (r) => r.steps),
      sharedCommits: {
        sent: sum(replies, (r) => r.sharedCommits.sent),
        cancelled: sum(replies, (r) => r.sharedCommits.cancelled),
      },
      conflicts: {
        worldsWithRules: sum(replies, (r) => r.conflicts.worldsWithRules),
        real: sum(replies, (r) => r.conflicts.real),
        injected: sum(replies, (r) => r.conflicts.injected),
      },
      elapsedMillis,
    };
    if (print) printSummary(summary, options.mutant);
    return summary;
  } finally {
    pool.stop();
  }
}

type WorldReport = WorkerReply['results'][number];

/**
 * Runs the seeds in chunks over the pool, each worker taking the next chunk when it is done;
 * with `stopAtFirst`, no chunk starts after one holding an accepted failure.
 */
async function runSeeds(
  pool: WorkerPool,
  seeds: readonly number[],
  options: SimulationOptions,
  print: boolean,
): Promise<Array<WorkerReply & { seeds: number }>> {
  const stop = options.stopAtFirst;
  const chunks = chunked(seeds, stop === undefined ? CHUNK_SEEDS : SEARCH_CHUNK_SEEDS);
  const replies: Array<WorkerReply & { seeds: number }> = [];
  const progress = new Progress(seeds.length, print);
  let next = 0;
  let found = false;
  const worker = async () => {
    while (!found && next < chunks.length) {
      const index = next++;
      const chunk = chunks[index] ?? [];
      const hashesOf = chunk.filter((seed) => seed % GUARD_SAMPLE_EVERY === 0);
      const reply = await pool.run({
        type: 'run',
        seeds: chunk,
        hashesOf,
        keepTrace: false,
        config: options.config,
      });
      progress.add(chunk.length, chunk.length - reply.passed);
      replies[index] = { ...reply, seeds: chunk.length };
      if (stop !== undefined && reply.results.some((report) => stop(report.failures))) found = true;
    }
  };
  await Promise.all(Array.from({ length: pool.size }, worker));
  progress.end();
  return replies.filter((reply) => reply !== undefined);
}

function failure(report: WorldReport, corpus: boolean): SimulationSummary['failed'][number] {
  return { seed: report.seed, failures: report.failures, corpus };
}

/** Runs each world of the corpus with its pinned configuration. */
async function runCorpus(pool: WorkerPool, corpus: readonly CorpusEntry[]): Promise<WorldReport[]> {
  const replies = await Promise.all(
    corpus.map((entry) =>
      pool.run({
        type: 'run',
        seeds: [entry.seed],
        hashesOf: [entry.seed],
        keepTrace: false,
        config: entry.config,
      }),
    ),
  );
  return replies.flatMap((reply) => reply.results);
}

/** Runs failing and sampled seeds again and returns those whose trace hash changed. */
async function guardDeterminism(
  pool: WorkerPool,
  results: readonly WorldReport[],
  config: WorldConfig | undefined,
): Promise<number[]> {
  const again = [
    ...results.filter((r) => r.failures.length > 0).slice(0, GUARD_MAX_FAILING),
    ...results.filter((r) => r.failures.length === 0),
  ];
  // Reversed, so each seed runs after other worlds than the first time, in another process's state.
  const seeds = again.map((r) => r.seed).reverse();
  const replies = await Promise.all(
    chunked(seeds, CHUNK_SEEDS).map((chunk) =>
      pool.run({ type: 'run', seeds: chunk, hashesOf: chunk, keepTrace: false, config }),
    ),
  );
  const hashes = new Map(
    replies.flatMap((reply) => reply.results.map((r) => [r.seed, r.traceHash] as const)),
  );
  return again.filter((r) => hashes.get(r.seed) !== r.traceHash).map((r) => r.seed);
}

/** Runs the corpus again and returns the seeds of the worlds whose trace hash changed. */
async function guardCorpus(
  pool: WorkerPool,
  corpus: readonly CorpusEntry[],
  first: readonly WorldReport[],
): Promise<number[]> {
  const again = await runCorpus(pool, [...corpus].reverse());
  const hashes = new Map(again.map((r) => [r.seed, r.traceHash] as const));
  return first.filter((r) => hashes.get(r.seed) !== r.traceHash).map((r) => r.seed);
}

/**
 * Replays one seed in a worker process and returns its trace, configuration and failures;
 * with `config`, the world has that configuration instead of the one the seed draws.
 *
 * @example
 * ```ts
 * const world = await replaySeed(1234);
 * console.log(world.trace.join('\n'));
 * ```
 */
export async function replaySeed(
  seed: number,
  options: { readonly mutant?: Mutant; readonly config?: WorldConfig } = {},
): Promise<WorldReport> {
  const pool = await WorkerPool.start(await bundleSimulation({ mutant: options.mutant }), 1);
  try {
    const reply = await pool.run({
      type: 'run',
      seeds: [seed],
      hashesOf: [seed],
      keepTrace: true,
      config: options.config,
    });
    const result = reply.results[0];
    if (result === undefined) throw new Error(`the worker sent no result for seed ${seed}`);
    return result;
  } finally {
    pool.stop();
  }
}

function printStart(
  seeds: number,
  corpus: number,
  workers: number,
  mutant: Mutant | undefined,
): void {
  const plusCorpus = corpus > 0 ? ` and ${corpus} worlds of the corpus` : '';
  const label = mutant ? ` with the mutant ${mutant.name}` : '';
  console.error(
    `simulating ${seeds.toLocaleString('en-US')} seeds${plusCorpus} on ${workers} workers${label}`,
  );
}

function printSummary(summary: SimulationSummary, mutant: Mutant | undefined): void {
  const rate = Math.round(summary.seedsPerSecond).toLocaleString('en-US');
  const label = mutant ? ` (mutant ${mutant.name})` : '';
  console.log(
    `${summary.passed.toLocaleString('en-US')} passed, ${summary.failed.length.toLocaleString('en-US')} failed${label} — ` +
      `${rate} seeds/s, ${(summary.elapsedMillis / 1000).toFixed(1)} s, ${Math.round(summary.steps / Math.max(1, summary.seeds))} steps per world, ` +
      `${summary.sharedCommits.sent.toLocaleString('en-US')} shared commits (${summary.sharedCommits.cancelled.toLocaleString('en-US')} cancelled), ` +
      conflictsLine(summary.conflicts),
  );
  for (const { seed, failures, corpus } of summary.failed.slice(0, 10)) {
    console.log(
      `  seed ${seed}: ${failures[0]}${failures.length > 1 ? ` (+${failures.length - 1} more)` : ''}`,
    );
    console.log(
      `    replay: npm run sim -- --seed ${seed}${corpus ? ' --corpus' : ''}${mutant ? ` --mutant ${mutant.name}` : ''}`,
    );
  }
  if (summary.nondeterministic.length > 0) {
    console.log(
      `determinism guard: ${summary.nondeterministic.length} seed(s) traced differently when run again: ${summary.nondeterministic.slice(0, 10).join(', ')}`,
    );
  }
}

/** The seeds' conflicts, and the real ones per world that had the conflict rules on. */
function conflictsLine({ worldsWithRules, real, injected }: ConflictCounts): string {
  const perWorld = (real / Math.max(1, worldsWithRules)).toFixed(1);
  return `${real.toLocaleString('en-US')} real conflicts in ${worldsWithRules.toLocaleString('en-US')} worlds with the conflict rules (${perWorld} per world), ${injected.toLocaleString('en-US')} injected`;
}

/** A progress line on stderr: rewritten each second on a terminal, a new line every 10 s otherwise. */
class Progress {
  readonly #total: number;
  readonly #print: boolean;
  readonly #tty = process.stderr.isTTY === true;
  readonly #startedMillis = performance.now();
  #done = 0;
  #failed = 0;
  #printedMillis = 0;

  constructor(total: number, print: boolean) {
    this.#total = total;
    this.#print = print;
  }

  add(seeds: number, failed: number): void {
    this.#done += seeds;
    this.#failed += failed;
    const now = performance.now();
    if (!this.#print || now - this.#printedMillis < (this.#tty ? 1_000 : 10_000)) return;
    this.#printedMillis = now;
    const rate = Math.round(this.#done / ((now - this.#startedMillis) / 1000));
    const line = `${this.#done.toLocaleString('en-US')}/${this.#total.toLocaleString('en-US')} seeds, ${rate}/s, ${this.#failed} failed`;
    process.stderr.write(this.#tty ? `\r${line} ` : `${line}\n`);
  }

  end(): void {
    if (this.#print && this.#tty) process.stderr.write('\n');
  }
}

function range(from: number, count: number): number[] {
  return Array.from({ length: count }, (_, n) => from + n);
}

function chunked<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

function sum<T>(items: readonly T[], of: (item: T) => number): number {
  return items.reduce((total, item) => total + of(item), 0);
}
