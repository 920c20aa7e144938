import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { projectRoot } from '../emulator/paths.js';
import { entryAliases } from '../sdk/entryPoints.js';

/**
 * Bundles a private tool's entry into one ES module for Node 20 in a temporary folder, with the
 * library's source (`sqs-inbox`) and the SDK inside: a process started many times loads one file
 * instead of transpiling TypeScript again. Returns the module's path.
 *
 * @example
 * ```ts
 * const workerPath = await bundleForNode('tools/chaos/chaosWorker.ts'); // /tmp/sqs-inbox-chaosWorker-…/chaosWorker.mjs
 * ```
 */
export async function bundleForNode(
  entry: string,
  options: { readonly plugins?: readonly Plugin[] } = {},
): Promise<string> {
  const name = entry.slice(entry.lastIndexOf('/') + 1).replace(/\.ts$/, '');
  const outfile = join(mkdtempSync(join(tmpdir(), `sqs-inbox-${name}-`)), `${name}.mjs`);
  await build({
    entryPoints: [join(projectRoot, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    mainFields: ['module', 'main'],
    alias: entryAliases(projectRoot),
    // ESM output has no `require`; some bundled CommonJS dependencies still call it.
    banner: {
      js: "import { createRequire as bundleCreateRequire } from 'node:module'; const require = bundleCreateRequire(import.meta.url);",
    },
    plugins: [...(options.plugins ?? [])],
    logLevel: 'warning',
  });
  return outfile;
}
