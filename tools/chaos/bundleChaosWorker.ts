import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { projectRoot } from '../emulator/paths.js';

/**
 * Bundles the chaos worker into one ES module (SDK and library included), so each of the
 * run's many restarts loads one file instead of transpiling TypeScript again.
 *
 * @example
 * ```ts
 * const workerPath = await bundleChaosWorker(); // /tmp/sqs-inbox-chaos-…/chaosWorker.mjs
 * ```
 */
export async function bundleChaosWorker(): Promise<string> {
  const outfile = join(mkdtempSync(join(tmpdir(), 'sqs-inbox-chaos-')), 'chaosWorker.mjs');
  await build({
    entryPoints: [join(projectRoot, 'tools', 'chaos', 'chaosWorker.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    mainFields: ['module', 'main'],
    alias: { 'sqs-inbox': join(projectRoot, 'src', 'index.ts') },
    // ESM output has no `require`; some bundled CommonJS dependencies still call it.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  return outfile;
}
