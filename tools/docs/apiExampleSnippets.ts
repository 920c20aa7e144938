import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { apiCodeBlocks } from './apiCodeBlocks.js';
import { exampleModule, type ScopeModule } from './exampleModule.js';
import type { CodeBlock } from './markdownBlocks.js';
import { preludeProblems } from './preludeProblems.js';

/** Something wrong at a 1-based line of a page or source file. */
export interface PageProblem {
  readonly page: string;
  readonly line: number;
  readonly message: string;
}

/** Where the API's examples come from: the entry points' sources and the examples' context. */
export interface ApiExampleInput {
  /** Each entry point's name and its source, relative to the root (`sqs-inbox/cdk` → `src/cdk/index.ts`). */
  readonly entries: Readonly<Record<string, string>>;
  /** The module of names examples use undeclared, relative to the root (`tools/docs/exampleContext.ts`). */
  readonly context: string;
}

/** A ts block to compile: where it is (a page, or a source file's TSDoc) and its module. */
export interface ApiSnippet {
  readonly page: string;
  readonly block: CodeBlock;
  /** The module file the block is written to. */
  readonly file: string;
  /** The module's text: the block's code, line for line, then its imports. */
  readonly text: string;
  /** How an error names the block. */
  readonly where: string;
}

/** Whether an export is a type only — `export type { X }`, here or along its re-exports. */
function isTypeOnly(checker: ts.TypeChecker, exported: ts.Symbol): boolean {
  for (let symbol: ts.Symbol | undefined = exported; symbol !== undefined; ) {
    if (!(symbol.flags & ts.SymbolFlags.Alias)) return false;
    const typeOnly = (symbol.declarations ?? []).some(
      (declaration) =>
        ts.isExportSpecifier(declaration) &&
        (declaration.isTypeOnly || declaration.parent.parent.isTypeOnly),
    );
    if (typeOnly) return true;
    symbol = checker.getImmediateAliasedSymbol(symbol);
  }
  return false;
}

function exportsOf(checker: ts.TypeChecker, source: ts.SourceFile | undefined, path: string) {
  const module = source && checker.getSymbolAtLocation(source);
  if (module === undefined) throw new Error(`${path}: not a module of the program`);
  return new Map(
    checker.getExportsOfModule(module).map((exported) => {
      const symbol =
        exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const isValue = (symbol.flags & ts.SymbolFlags.Value) !== 0 && !isTypeOnly(checker, exported);
      return [exported.name, isValue] as const;
    }),
  );
}

/** `../../x.js` from `from`'s folder: how a module under the work folder imports `file` (NodeNext). */
function specifierTo(from: string, file: string): string {
  const path = relative(dirname(from), file).split('\\').join('/').replace(/\.ts$/, '.js');
  return path.startsWith('.') ? path : `./${path}`;
}

/**
 * The TSDoc ts blocks of the package's public API ({@link apiCodeBlocks}) as modules to compile
 * under `workDir`: each with the exports of its own entry point and of the root entry in scope
 * (what a reader of its page imports without being told; another entry's names it imports
 * itself) and the context's names, minus what it binds itself ({@link exampleModule}); and
 * what is wrong with the preludes ({@link preludeProblems}). The `host` parses the entries;
 * given to the compile too, they are parsed once.
 *
 * @example
 * ```ts
 * const host = sharingHost(options);
 * const { snippets, problems } = apiExampleSnippets(root, join(root, '.cache/docs-snippets'), options, {
 *   entries: ENTRY_POINTS, context: 'tools/docs/exampleContext.ts',
 * }, host);
 * ```
 */
export function apiExampleSnippets(
  root: string,
  workDir: string,
  options: ts.CompilerOptions,
  input: ApiExampleInput,
  host: ts.CompilerHost,
): { snippets: ApiSnippet[]; problems: PageProblem[] } {
  const entryFiles = Object.fromEntries(
    Object.entries(input.entries).map(([entry, path]) => [entry, join(root, path)]),
  );
  const contextFile = join(root, input.context);
  const rootNames = [...Object.values(entryFiles), contextFile];
  const program = ts.createProgram({ rootNames, options, host });
  const checker = program.getTypeChecker();
  const entryScope = Object.entries(entryFiles).map(([entry, path]) => ({
    specifier: entry,
    names: exportsOf(checker, program.getSourceFile(path), path),
  }));
  const contextNames = exportsOf(checker, program.getSourceFile(contextFile), contextFile);
  const contextNameSet = new Set(contextNames.keys());
  const snippets: ApiSnippet[] = [];
  const problems: PageProblem[] = [];
  for (const { file, entry, name, block } of apiCodeBlocks(program, entryFiles, root)) {
    const module = join(
      workDir,
      'api',
      file.replace(/\.[cm]?ts$/, ''),
      `line-${block.fenceLine}.mts`,
    );
    // The page's entry and the root: what a reader of the page imports from without being told.
    const scope: ScopeModule[] = [
      ...entryScope.filter((scope) => scope.specifier === entry),
      ...entryScope.filter((scope) => scope.specifier !== entry && !scope.specifier.includes('/')),
      { specifier: specifierTo(module, contextFile), names: contextNames },
    ];
    const where = `in the ts block of ${name}'s TSDoc from line ${block.fenceLine}`;
    const prelude = preludeProblems(block.code, contextNameSet).map((problem) => ({
      page: file,
      line: block.fenceLine + 1 + problem.line,
      message: `${problem.message} (${where})`,
    }));
    snippets.push({
      page: file,
      block,
      file: module,
      text: exampleModule(block.code, scope),
      where,
    });
    problems.push(...prelude);
  }
  return { snippets, problems };
}
