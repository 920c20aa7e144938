import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../emulator/paths.js';

const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
  readonly name: string;
  readonly exports: Record<string, { readonly import?: { readonly types?: string } }>;
};

/**
 * The package's entry points and the source file each is built from, read from package.json's
 * `exports` (`./dist/esm/cdk/index.d.ts` is built from `src/cdk/index.ts`): what the repo's own
 * code (reference functions, tools, benchmarks) imports by package name, as a user would,
 * resolved to the source. tsconfig's `paths` list the same (a unit test holds them together).
 *
 * @example
 * ```ts
 * ENTRY_POINTS['sqs-inbox/errors'] // => 'src/errors.ts'
 * ```
 */
export const ENTRY_POINTS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(manifest.exports).flatMap(([subpath, conditions]) => {
    const types = conditions.import?.types;
    if (types === undefined) return []; // ./package.json
    const name = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
    return [[name, types.replace(/^\.\/dist\/esm\//, 'src/').replace(/\.d\.ts$/, '.ts')]];
  }),
);

/**
 * esbuild's `alias` for the entry points, to the sources under `projectRoot`.
 *
 * @example
 * ```ts
 * await build({ entryPoints: [entry], bundle: true, alias: entryAliases(projectRoot) });
 * ```
 */
export function entryAliases(root: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(ENTRY_POINTS).map(([name, source]) => [name, join(root, source)]),
  );
}
