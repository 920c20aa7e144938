import { codeBlocks } from './markdownBlocks.js';

/**
 * The line that ends an example's prelude (the twoslash convention): what is above it compiles
 * with the example but is not shown on the site.
 *
 * @example
 * ```ts
 * const shown = code.split('\n').slice(code.split('\n').indexOf(CUT_LINE) + 1).join('\n');
 * ```
 */
export const CUT_LINE = '// ---cut---';

const isCut = (line: string) => line.trim() === CUT_LINE;

/**
 * Whether a block's code has a prelude, and whether what follows it shows anything: a cut with
 * nothing after it would show an empty block.
 *
 * @example
 * ```ts
 * preludeOf('declare const psp: Psp;\n// ---cut---\nawait psp.charge();') // => { lines: 2, showsCode: true }
 * ```
 */
export function preludeOf(code: string): { lines: number; showsCode: boolean } | undefined {
  const lines = code.split('\n');
  const cut = lines.findLastIndex(isCut);
  if (cut === -1) return undefined;
  return { lines: cut + 1, showsCode: lines.slice(cut + 1).some((line) => line.trim() !== '') };
}

/**
 * The markdown with every code block's prelude removed — its lines up to the last
 * {@link CUT_LINE} — as the site shows TSDoc examples; other text is unchanged.
 *
 * @example
 * ```ts
 * withoutPreludes('```ts\ndeclare const psp: Psp;\n// ---cut---\nawait psp.charge();\n```')
 * // => '```ts\nawait psp.charge();\n```'
 * ```
 */
export function withoutPreludes(markdown: string): string {
  const lines = markdown.split('\n');
  const drop = new Set<number>();
  for (const block of codeBlocks(markdown)) {
    // 1-based fence line: the code is lines[fenceLine] .. lines[closeLine - 2].
    const code = lines.slice(block.fenceLine, block.closeLine - 1);
    const cut = code.findLastIndex(isCut);
    for (let index = 0; index <= cut; index++) drop.add(block.fenceLine + index);
  }
  return lines.filter((_, index) => !drop.has(index)).join('\n');
}
