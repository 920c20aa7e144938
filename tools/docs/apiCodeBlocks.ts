import { relative } from 'node:path';
import ts from 'typescript';
import { type CodeBlock, codeBlocks } from './markdownBlocks.js';

/** A ```` ```ts ```` block of the TSDoc of a public declaration: what the API reference shows. */
export interface ApiCodeBlock {
  /** The source file, relative to the repository root, with `/`. */
  readonly file: string;
  /** The entry point that exports the declaration (`sqs-inbox/cdk`); the first, if several do. */
  readonly entry: string;
  /** The exported name the block documents (a member's block: its declaration's export). */
  readonly name: string;
  /** The block, its `fenceLine` a 1-based line of `file`; its first code line is the next one. */
  readonly block: CodeBlock;
}

const TS_LANGS = new Set(['ts', 'typescript', 'mts']);

/**
 * A JSDoc comment as markdown whose lines are the source's lines: `/**`, the `*` margins and
 * `*\/` removed. An `@example` with no fence is code, as TypeDoc shows it: fenced here.
 */
function commentMarkdown(text: string): string {
  const lines = text.split(/\r?\n/).map((line, index) => {
    const unstarred =
      index === 0 ? line.replace(/^\s*\/\*\*\s?/, '') : line.replace(/^\s*\*(?!\/) ?/, '');
    return unstarred.replace(/\s*\*\/\s*$/, '');
  });
  return fenceBareExamples(lines).join('\n');
}

/**
 * `@example` text with no fence before the next tag: TypeDoc renders it as TypeScript; wrapped
 * in place (a title line before a fence is a title, as TypeDoc reads it).
 */
function fenceBareExamples(lines: string[]): string[] {
  const result = [...lines];
  for (let index = 0; index < result.length; index++) {
    if (!/^\s*@example\b/.test(result[index] ?? '')) continue;
    let end = index;
    while (end + 1 < result.length && !/^\s*@\w/.test(result[end + 1] ?? '')) end++;
    const body = result.slice(index + 1, end + 1);
    if (body.some((line) => /^\s*(```|~~~)/.test(line)) || body.every((line) => line.trim() === ''))
      continue;
    // The tag line becomes the fence; the code keeps its lines.
    result[index] = '```ts';
    result.splice(end + 1, 0, '```');
  }
  return result;
}

function isHidden(node: ts.Node): boolean {
  const modifiers = ts.canHaveModifiers(node) ? (ts.getModifiers(node) ?? []) : [];
  if (modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.PrivateKeyword)) return true;
  const name = (node as { name?: ts.Node }).name;
  if (name !== undefined && ts.isPrivateIdentifier(name)) return true;
  return ts.getJSDocTags(node).some((tag) => tag.tagName.text === 'internal');
}

/** Collects the ts blocks of `node`'s JSDoc and of its members', not looking into bodies. */
function collect(node: ts.Node, found: (doc: ts.JSDoc) => void): void {
  if (ts.isBlock(node) || isHidden(node)) return;
  for (const doc of ts.getJSDocCommentsAndTags(node)) if (ts.isJSDoc(doc)) found(doc);
  ts.forEachChild(node, (child) => collect(child, found));
}

/**
 * Every ```` ```ts ```` block in the TSDoc of what the package's entry points export — the
 * declarations and their members, parameters and properties, not `@internal` or private ones
 * (TypeDoc leaves those out too) — each once, with its source line. An `@example` with no fence
 * counts as a ts block, as TypeDoc renders it.
 *
 * @example
 * ```ts
 * const blocks = apiCodeBlocks(program, { 'sqs-inbox': '/repo/src/index.ts' }, '/repo');
 * blocks[0] // => { file: 'src/core/createBatchProcessor.ts', entry: 'sqs-inbox', name: 'createBatchProcessor', block: { fenceLine: 41, … } }
 * ```
 */
export function apiCodeBlocks(
  program: ts.Program,
  entries: Readonly<Record<string, string>>,
  root: string,
): ApiCodeBlock[] {
  const checker = program.getTypeChecker();
  const seen = new Set<ts.JSDoc>();
  const blocks: ApiCodeBlock[] = [];
  for (const [entry, path] of Object.entries(entries)) {
    const source = program.getSourceFile(path);
    const module = source && checker.getSymbolAtLocation(source);
    if (module === undefined) throw new Error(`${path}: not a module of the program`);
    for (const exported of checker.getExportsOfModule(module)) {
      const symbol =
        exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      for (const declaration of symbol.declarations ?? []) {
        collect(declaration, (doc) => {
          if (seen.has(doc)) return;
          seen.add(doc);
          const file = doc.getSourceFile();
          const firstLine = file.getLineAndCharacterOfPosition(doc.getStart()).line;
          const markdown = commentMarkdown(doc.getText());
          for (const block of codeBlocks(markdown).filter((b) => TS_LANGS.has(b.lang))) {
            blocks.push({
              file: relative(root, file.fileName).split('\\').join('/'),
              entry,
              name: exported.name,
              block: {
                ...block,
                fenceLine: firstLine + block.fenceLine,
                closeLine: firstLine + block.closeLine,
              },
            });
          }
        });
      }
    }
  }
  return blocks;
}
