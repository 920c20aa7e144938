import { join } from 'node:path';

/**
 * The package's entry points and the source file each is built from: what the repo's own code
 * (reference functions, tools, benchmarks) imports by package name, as a user would, resolved
 * to the source. package.json's `exports` and tsconfig's `paths` list the same (a unit test
 * holds them together).
 *
 * @example
 * ```ts
 * ENTRY_POINTS['sqs-inbox/errors'] // => 'src/errors.ts'
 * ```
 */
export const ENTRY_POINTS = {
  'sqs-inbox': 'src/index.ts',
  'sqs-inbox/cdk': 'src/cdk/index.ts',
  'sqs-inbox/constants': 'src/constants/index.ts',
  'sqs-inbox/errors': 'src/errors.ts',
  'sqs-inbox/relay': 'src/relay/index.ts',
  'sqs-inbox/types': 'src/types.ts',
} as const;

/**
 * esbuild's `alias` for the entry points, to the sources under `projectRoot`.
 *
 * @example
 * ```ts
 * await build({ entryPoints: [entry], bundle: true, alias: entryAliases(projectRoot) });
 * ```
 */
export function entryAliases(projectRoot: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(ENTRY_POINTS).map(([name, source]) => [name, join(projectRoot, source)]),
  );
}
