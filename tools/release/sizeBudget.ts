// The package's size budgets (etc/size-budget.json), checked by `npm run check:package`: the
// packed tarball's bytes, and each budgeted entry's bundle as a user's bundler makes it
// (esbuild, bundled, minified, its dependencies external) gzipped. Pure: the script measures.

/** etc/size-budget.json. */
export interface SizeBudget {
  /** The most bytes `npm pack` may write (its `size`). */
  readonly tarballBytes: number;
  /** Per `exports` subpath (`.`, `./cdk`): the most gzipped bytes of its minified ESM bundle. */
  readonly entryMinGzipBytes: Readonly<Record<string, number>>;
}

/** A module of a bundle and the bytes it puts in it (esbuild's metafile `bytesInOutput`). */
export interface BundleInput {
  readonly path: string;
  readonly bytes: number;
}

/** How many of a bundle's largest inputs an error over budget names. */
const TOP_INPUTS = 8;

/**
 * Reads etc/size-budget.json's text, refusing a budget that is not a positive whole number.
 *
 * @example
 * ```ts
 * const budget = parseSizeBudget(readFileSync('etc/size-budget.json', 'utf8'));
 * ```
 */
export function parseSizeBudget(text: string): SizeBudget {
  const raw = JSON.parse(text) as Partial<SizeBudget>;
  const entries = Object.entries(raw.entryMinGzipBytes ?? {});
  for (const [name, value] of [['tarballBytes', raw.tarballBytes], ...entries] as const) {
    if (!Number.isInteger(value) || (value as number) <= 0) {
      throw new Error(
        `etc/size-budget.json: ${name} must be a positive whole number of bytes (given ${JSON.stringify(value)})`,
      );
    }
  }
  return {
    tarballBytes: raw.tarballBytes as number,
    entryMinGzipBytes: Object.fromEntries(entries),
  };
}

/**
 * What is over budget, one message per figure, empty when everything fits. A bundle's message
 * names its largest inputs, the modules to look at first.
 *
 * @example
 * ```ts
 * const problems = overBudget(budget, { tarballBytes: 1_380_687, entries: { '.': { gzipBytes: 41_000, inputs } } });
 * ```
 */
export function overBudget(
  budget: SizeBudget,
  measured: {
    readonly tarballBytes: number;
    readonly entries: Readonly<
      Record<string, { readonly gzipBytes: number; readonly inputs: readonly BundleInput[] }>
    >;
  },
): string[] {
  const problems: string[] = [];
  if (measured.tarballBytes > budget.tarballBytes) {
    problems.push(
      `the packed tarball is ${describeBytes(measured.tarballBytes)}, over its budget of ${describeBytes(budget.tarballBytes)} (etc/size-budget.json tarballBytes); npm pack --dry-run lists its files`,
    );
  }
  for (const [entry, budgetBytes] of Object.entries(budget.entryMinGzipBytes)) {
    const bundle = measured.entries[entry];
    if (bundle === undefined) {
      problems.push(
        `etc/size-budget.json budgets the entry ${entry}, which package.json's exports does not have`,
      );
    } else if (bundle.gzipBytes > budgetBytes) {
      problems.push(
        `the entry ${entry}, bundled and minified, is ${describeBytes(bundle.gzipBytes)} gzipped, over its budget of ${describeBytes(budgetBytes)} (etc/size-budget.json entryMinGzipBytes); its largest inputs, minified:\n${largestInputs(bundle.inputs)}`,
      );
    }
  }
  return problems;
}

function largestInputs(inputs: readonly BundleInput[]): string {
  return [...inputs]
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, TOP_INPUTS)
    .map((input) => `  ${describeBytes(input.bytes).padStart(22)}  ${input.path}`)
    .join('\n');
}

/**
 * Bytes as `1,380,687 B (1.32 MiB)`, exact and readable.
 *
 * @example
 * ```ts
 * describeBytes(41_000); // '41,000 B (40.0 KiB)'
 * ```
 */
export function describeBytes(bytes: number): string {
  const exact = `${bytes.toLocaleString('en-US')} B`;
  if (bytes >= 1024 * 1024) return `${exact} (${(bytes / 1024 / 1024).toFixed(2)} MiB)`;
  return bytes >= 1024 ? `${exact} (${(bytes / 1024).toFixed(1)} KiB)` : exact;
}
