import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type ts from 'typescript';
import {
  type ApiExampleInput,
  apiExampleSnippets,
  type PageProblem,
  type ApiSnippet as Snippet,
} from './apiExampleSnippets.js';
import { compileModules, compilerOptions, sharingHost } from './compileModules.js';
import { CUT_LINE, cutIndex } from './cutPrelude.js';
import { allowsOldApi } from './docPages.js';
import { type CodeBlock, codeBlocks, type FileInclude, fileIncludes } from './markdownBlocks.js';

export type { PageProblem } from './apiExampleSnippets.js';

/** What the snippet check did: pages read, `ts` blocks compiled and skipped, and what failed. */
export interface SnippetReport {
  readonly pages: number;
  readonly compiled: number;
  /** The ts blocks of the public API's TSDoc compiled (none without `api`). */
  readonly apiBlocks: number;
  readonly skippedOldApi: number;
  readonly includes: number;
  readonly problems: readonly PageProblem[];
}

/** Where to check: the repository root, its pages (relative to it) and a scratch folder. */
export interface SnippetCheckInput {
  readonly root: string;
  readonly pages: readonly string[];
  /** Emptied, then holds one module per block (`.mts`: ECMAScript modules wherever they are); under `root` so that `node_modules` resolves. */
  readonly workDir: string;
  /** The tsconfig whose options compile the blocks; the root's tsconfig.json by default. */
  readonly tsconfig?: string;
  /** Also compile the ts blocks of the public API's TSDoc, which the API reference shows. */
  readonly api?: ApiExampleInput;
}

const TS_LANGS = new Set(['ts', 'typescript', 'mts']);
const OLD_API = 'old-api';

/** The file an include names: `@/` is the VitePress source root, docs/; otherwise the page's folder. */
function includedFile(root: string, page: string, include: FileInclude): string {
  return include.path.startsWith('@/')
    ? resolve(root, 'docs', include.path.slice(2))
    : resolve(root, dirname(page), include.path);
}

function includeProblems(root: string, page: string, includes: FileInclude[]): PageProblem[] {
  return includes.flatMap((include) => {
    const file = includedFile(root, page, include);
    if (!existsSync(file)) {
      return [{ page, line: include.line, message: `includes ${include.path}: no such file` }];
    }
    const region = include.region;
    if (region !== undefined && !readFileSync(file, 'utf8').includes(`#region ${region}`)) {
      return [
        { page, line: include.line, message: `includes ${include.path}: no #region ${region}` },
      ];
    }
    return [];
  });
}

function includedModules(root: string, page: string, includes: FileInclude[]): IncludedModule[] {
  return includes.flatMap((include) => {
    const file = includedFile(root, page, include);
    return TS_FILE.test(file) && existsSync(file) ? [{ file, page, line: include.line }] : [];
  });
}

function oldApiProblem(page: string, block: CodeBlock): PageProblem {
  return {
    page,
    line: block.fenceLine,
    message:
      'a `ts old-api` block (code of an older release, not compiled) belongs only in CHANGELOG.md and docs/migrating*.md: make it compile as a plain `ts` block',
  };
}

function cutOnPageProblem(page: string, block: CodeBlock): PageProblem {
  return {
    page,
    line: block.fenceLine,
    message: `a \`${CUT_LINE}\` line hides a prelude in TSDoc examples only; a page shows its blocks whole: declare what the block needs in it, or include a compiled file`,
  };
}

/** The page's `ts` blocks to compile, and its `old-api` blocks: skipped, or a problem out of place. */
function sortBlocks(page: string, markdown: string, workDir: string) {
  const snippets: Snippet[] = [];
  const problems: PageProblem[] = [];
  let skipped = 0;
  for (const block of codeBlocks(markdown).filter((b) => TS_LANGS.has(b.lang))) {
    if (cutIndex(block.code.split('\n')) !== -1) problems.push(cutOnPageProblem(page, block));
    if (!block.meta.includes(OLD_API)) {
      const file = join(workDir, page.replace(/\.md$/, ''), `line-${block.fenceLine}.mts`);
      const where = `in the ts block from line ${block.fenceLine}`;
      snippets.push({ page, block, file, text: `${block.code}\n`, where });
    } else if (allowsOldApi(page)) skipped++;
    else problems.push(oldApiProblem(page, block));
  }
  return { snippets, problems, skipped };
}

/** An included TypeScript file, compiled with the blocks: at the page's line of the include. */
interface IncludedModule {
  readonly file: string;
  readonly page: string;
  readonly line: number;
}

const TS_FILE = /\.m?ts$/;

/**
 * A compiler error, at the page's line: the block's first code line is the fence's next one;
 * an included file's error at the include, naming the file's line.
 */
function compileProblems(
  snippets: readonly Snippet[],
  included: readonly IncludedModule[],
  tsconfig: string,
  host: ts.CompilerHost,
): PageProblem[] {
  const byFile = new Map(snippets.map((snippet) => [resolve(snippet.file), snippet]));
  const includedBy = new Map(included.map((include) => [resolve(include.file), include]));
  const files = [...new Set([...byFile.keys(), ...includedBy.keys()])];
  return compileModules(tsconfig, files, host).map((error) => {
    const snippet = byFile.get(resolve(error.file));
    const include = includedBy.get(resolve(error.file));
    if (snippet === undefined && include !== undefined) {
      const where = `in the included ${include.file}:${error.line}`;
      return { page: include.page, line: include.line, message: `${error.message} (${where})` };
    }
    if (snippet === undefined)
      return { page: error.file || 'tsconfig', line: error.line, message: error.message };
    const { page, block, where } = snippet;
    return { page, line: block.fenceLine + error.line, message: `${error.message} (${where})` };
  });
}

/**
 * Checks the pages' code: every ```` ```ts ```` block compiles, each as a module of its own, in
 * one program against the package's entries (tsconfig's `paths`); ```` ```ts old-api ````
 * blocks are skipped where {@link allowsOldApi} allows them and a problem elsewhere; every
 * `<<< path` and `<!--@include: path-->` names a file that exists (and its `#region`), and an
 * included `.ts`/`.mts` file compiles in the same program (a file outside the folders
 * `npm run typecheck` reads, such as docs/, is compiled nowhere else). With `api`, the ts
 * blocks of the public API's TSDoc compile in the same program, each with the package's
 * exports and the examples' context in scope (see `apiExampleSnippets`); an error is reported
 * at the block's line of its source file.
 *
 * @example
 * ```ts
 * const report = checkSnippets({ root, pages: checkedPages(root), workDir: join(root, '.cache/docs-snippets') });
 * report.problems // => [{ page: 'docs/testing.md', line: 42, message: "TS2322: … (in the ts block from line 40)" }]
 * ```
 */
export function checkSnippets(input: SnippetCheckInput): SnippetReport {
  rmSync(input.workDir, { recursive: true, force: true });
  const snippets: Snippet[] = [];
  const problems: PageProblem[] = [];
  let skippedOldApi = 0;
  let includes = 0;
  const included: IncludedModule[] = [];
  for (const page of input.pages) {
    const markdown = readFileSync(join(input.root, page), 'utf8');
    const sorted = sortBlocks(page, markdown, input.workDir);
    const pageIncludes = fileIncludes(markdown);
    snippets.push(...sorted.snippets);
    problems.push(...sorted.problems, ...includeProblems(input.root, page, pageIncludes));
    skippedOldApi += sorted.skipped;
    includes += pageIncludes.length;
    included.push(...includedModules(input.root, page, pageIncludes));
  }
  const compiled = snippets.length;
  const tsconfig = input.tsconfig ?? join(input.root, 'tsconfig.json');
  const options = compilerOptions(tsconfig);
  const host = sharingHost(options);
  if (input.api !== undefined) {
    const api = apiExampleSnippets(input.root, input.workDir, options, input.api, host);
    snippets.push(...api.snippets);
    problems.push(...api.problems);
  }
  for (const { file, text } of snippets) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  if (snippets.length + included.length > 0) {
    problems.push(...compileProblems(snippets, included, tsconfig, host));
  }
  const apiBlocks = snippets.length - compiled;
  return { pages: input.pages.length, compiled, apiBlocks, skippedOldApi, includes, problems };
}
