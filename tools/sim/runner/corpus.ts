import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../emulator/paths.js';
import type { WorldConfig } from '../world/WorldConfig.js';

/**
 * A world that once failed in development, kept so that it runs on every `npm test`: its seed,
 * the configuration it had (pinned, so that later changes to how seeds draw configurations do
 * not turn it into another world), what failed, and what fixed it.
 *
 * @example
 * ```ts
 * const entry: CorpusEntry = { seed: 1409, config, found: '2026-11-24', failure: '…', fixedBy: 'fix: …' };
 * ```
 */
export interface CorpusEntry {
  readonly seed: number;
  readonly config: WorldConfig;
  readonly found: string;
  readonly failure: string;
  readonly fixedBy: string;
}

/** Where the regression corpus lives. */
export const CORPUS_PATH = join(projectRoot, 'tools', 'sim', 'corpus.json');

/**
 * The regression corpus.
 *
 * @example
 * ```ts
 * for (const entry of loadCorpus()) await runWorld({ seed: entry.seed, config: entry.config });
 * ```
 */
export function loadCorpus(): CorpusEntry[] {
  return (JSON.parse(readFileSync(CORPUS_PATH, 'utf8')) as { worlds: CorpusEntry[] }).worlds;
}
