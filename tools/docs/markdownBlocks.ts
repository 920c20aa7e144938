/** A fenced code block of a markdown page. */
export interface CodeBlock {
  /** The language: the fence info's first word (```` ```ts old-api ```` → `ts`), as VitePress reads it. */
  readonly lang: string;
  /** The words after the language (```` ```ts old-api ```` → `['old-api']`). */
  readonly meta: readonly string[];
  /** The 1-based line of the opening fence. */
  readonly fenceLine: number;
  /** The 1-based line of the closing fence (the last line if the block is left open). */
  readonly closeLine: number;
  /** The block's text, without the fences and the fence's indentation. */
  readonly code: string;
}

/** A file a page includes: VitePress's `<<< @/path` code include or `<!--@include: path-->`. */
export interface FileInclude {
  /** The path as written (`@/../examples/x.ts`, `./part.md`). */
  readonly path: string;
  /** The `#region` it names, if any. */
  readonly region: string | undefined;
  /** The 1-based line of the include. */
  readonly line: number;
}

const FENCE_OPEN = /^((?:[ \t]*> ?)*)([ \t]*)(`{3,}|~{3,})(.*)$/;
const CODE_INCLUDE = /^\s*<<<\s+([^\s{[#]+)(?:#([\w-]+))?/;
const MARKDOWN_INCLUDE = /<!--\s*@include:\s*([^\s#{]+?)(?:#([\w-]+?))?(?:\{[\d,-]*\})?\s*-->/g;

/** The fence info's language and meta words; VitePress's `lang:line-numbers` and `{1,3}` are not meta. */
function parseInfo(info: string): { lang: string; meta: string[] } {
  const [first = '', ...rest] = info.trim().split(/\s+/);
  const lang = first.replace(/[:{[].*$/, '').toLowerCase();
  return { lang, meta: rest.filter((word) => !/^[{[]/.test(word)) };
}

function isClosingFence(line: string, fence: string): boolean {
  const trimmed = line.trim();
  return trimmed.startsWith(fence) && /^([`~])\1*$/.test(trimmed) && trimmed[0] === fence[0];
}

/**
 * The fenced code blocks of a markdown text, in order (CommonMark fences: three or more
 * backticks or tildes, closed by a fence of the same character at least as long; a block left
 * open runs to the end, or to the end of the blockquote it opened in). A fence inside another
 * block (a longer fence around it) is text. Fences in blockquotes (`> ```ts`) count, without
 * their `>` markers; the language is lowercased (```` ```TS ```` is `ts`).
 *
 * @example
 * ```ts
 * codeBlocks('# Title\n```ts old-api\nlet a = 1;\n```\n')
 * // => [{ lang: 'ts', meta: ['old-api'], fenceLine: 2, closeLine: 4, code: 'let a = 1;' }]
 * ```
 */
export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = FENCE_OPEN.exec(lines[index] ?? '');
    if (open === null || (open[3]?.startsWith('`') && open[4]?.includes('`'))) continue;
    const [, quote = '', indent = '', fence = '', info = ''] = open;
    const depth = quote.split('>').length - 1;
    const body: string[] = [];
    let end = index + 1;
    for (; end < lines.length; end++) {
      const line = unquote(lines[end] ?? '', depth);
      if (line === undefined || isClosingFence(line, fence)) break;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    const closeLine = Math.min(end, lines.length - 1) + 1;
    blocks.push({ ...parseInfo(info), fenceLine: index + 1, closeLine, code: body.join('\n') });
    index = end;
  }
  return blocks;
}

/** A line inside `depth` blockquotes without their `>` markers; undefined if it leaves them. */
function unquote(line: string, depth: number): string | undefined {
  let rest = line;
  for (let level = 0; level < depth; level++) {
    const marker = /^[ \t]*> ?/.exec(rest);
    if (marker === null) return undefined;
    rest = rest.slice(marker[0].length);
  }
  return rest;
}

/**
 * The files a markdown text includes, outside its code blocks: `<<< @/path` lines (VitePress's
 * code include, optionally `#region`) and `<!--@include: path-->` comments.
 *
 * @example
 * ```ts
 * fileIncludes('<<< @/../examples/quickStart/ledger.ts#handler{2-4}')
 * // => [{ path: '@/../examples/quickStart/ledger.ts', region: 'handler', line: 1 }]
 * ```
 */
export function fileIncludes(markdown: string): FileInclude[] {
  const lines = markdown.split(/\r?\n/);
  const inBlock = new Set<number>();
  for (const block of codeBlocks(markdown)) {
    for (let line = block.fenceLine; line <= block.closeLine; line++) inBlock.add(line);
  }
  return lines.flatMap((text, index) => {
    if (inBlock.has(index + 1)) return [];
    const code = CODE_INCLUDE.exec(text);
    const found = code === null ? [] : [{ path: code[1] ?? '', region: code[2], line: index + 1 }];
    for (const match of text.matchAll(MARKDOWN_INCLUDE)) {
      found.push({ path: match[1] ?? '', region: match[2], line: index + 1 });
    }
    return found;
  });
}
