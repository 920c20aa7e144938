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

/**
 * The index of a block's last {@link CUT_LINE} among its lines, -1 if it has none: the prelude
 * is the lines before it.
 *
 * @example
 * ```ts
 * cutIndex(['declare const psp: Psp;', '// ---cut---', 'await psp.charge();']) // => 1
 * ```
 */
export function cutIndex(lines: readonly string[]): number {
  return lines.findLastIndex((line) => line.trim() === CUT_LINE);
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
    const cut = cutIndex(lines.slice(block.fenceLine, block.closeLine - 1));
    for (let index = 0; index <= cut; index++) drop.add(block.fenceLine + index);
  }
  return lines.filter((_, index) => !drop.has(index)).join('\n');
}
