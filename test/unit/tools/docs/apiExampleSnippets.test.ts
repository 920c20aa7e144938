import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSnippets, type SnippetReport } from '../../../../tools/docs/snippetCheck.js';

const FENCE = '```';

/** A package of its own (`fixture-pkg`): its entry's TSDoc, line by line as numbered. */
const ENTRY = [
  '/**', //                                                    1
  ' * Adds two numbers.', //                                   2
  ' *', //                                                     3
  ' * @example', //                                            4
  ` * ${FENCE}ts`, //                                          5
  ' * const sum: number = add(1, 2); // => 3', //              6
  ` * ${FENCE}`, //                                            7
  ' */', //                                                    8
  'export function add(a: number, b: number): number {', //   9
  '  return a + b;', //                                       10
  '}', //                                                     11
  '', //                                                      12
  '/** A counter. */', //                                     13
  'export class Counter {', //                                14
  '  /**', //                                                 15
  '   * Counts by a step.', //                                16
  '   *', //                                                  17
  '   * @example', //                                         18
  `   * ${FENCE}ts`, //                                       19
  '   * const next: number = new Counter().increment(step);', // 20
  `   * ${FENCE}`, //                                         21
  '   */', //                                                 22
  '  increment(by: number): number {', //                     23
  '    return by;', //                                        24
  '  }', //                                                   25
  '  /**', //                                                 26
  '   * @internal', //                                        27
  '   * @example', //                                         28
  `   * ${FENCE}ts`, //                                       29
  '   * internal examples are not shown: not compiled(', //  30
  `   * ${FENCE}`, //                                         31
  '   */', //                                                 32
  '  reset(): void {}', //                                    33
  '  /**', //                                                 34
  '   * @example', //                                         35
  `   * ${FENCE}ts`, //                                       36
  '   * private examples are not shown: not compiled(', //   37
  `   * ${FENCE}`, //                                         38
  '   */', //                                                 39
  '  private secret(): void {}', //                           40
  '}', //                                                     41
  '', //                                                      42
  '/**', //                                                   43
  ' * An example with no fence is TypeScript, as TypeDoc shows it.', // 44
  ' *', //                                                    45
  ' * @example', //                                           46
  ' * const total: string = add(1, 2);', //                   47
  ' */', //                                                   48
  'export const bare = 1;', //                                49
  '', //                                                      50
  '/**', //                                                   51
  ' * @example', //                                           52
  ` * ${FENCE}ts`, //                                         53
  ' * declare const width: number;', //                       54
  ' * // ---cut---', //                                       55
  ' * const shape: Shape = { width };', //                    56
  ` * ${FENCE}`, //                                           57
  ' */', //                                                   58
  'export const withPrelude = 2;', //                         59
  "export type { Box, Shape } from './shape.js';", //         60
  '', //                                                      61
  '/**', //                                                   62
  ' * Not exported: its example is not compiled.', //         63
  ' * @example', //                                           64
  ` * ${FENCE}ts`, //                                         65
  ' * notCompiled(', //                                       66
  ` * ${FENCE}`, //                                           67
  ' */', //                                                   68
  'function hidden(): void {}', //                            69
  'hidden();', //                                             70
  '/** A store. */', //                                       71
  'export class Store {', //                                  72
  '  /** @internal */', //                                    73
  '  find(): number {', //                                    74
  '    return 1;', //                                         75
  '  }', //                                                   76
  '}', //                                                     77
  '', //                                                      78
  '/**', //                                                   79
  ' * @example', //                                           80
  ` * ${FENCE}ts`, //                                         81
  ' * const found: number = new Store().find();', //          82
  ` * ${FENCE}`, //                                           83
  ' */', //                                                   84
  'export const usesInternal = 4;', //                        85
  '', //                                                      86
  '/**', //                                                   87
  ' * @example', //                                           88
  ` * ${FENCE}ts`, //                                         89
  ' * const n: number = extra;', //                           90
  ` * ${FENCE}`, //                                           91
  ' */', //                                                   92
  'export const needsExtra = 5;', //                          93
  '', //                                                      94
  '/**', //                                                   95
  ' * @example', //                                           96
  ' * With a title line', //                                  97
  ` * ${FENCE}ts`, //                                         98
  ' * const titled: number = add(2, 2);', //                  99
  ` * ${FENCE}`, //                                          100
  ' */', //                                                  101
  'export const titled = 6;', //                             102
  '', //                                                     103
  '/**', //                                                  104
  ' * @example', //                                          105
  ` * ${FENCE}ts`, //                                        106
  " * import { add } from 'fixture-pkg';", //                107
  ' * declare const step: string;', //                       108
  ' * // ---cut---', //                                      109
  ' * const sum: number = add(1, step.length);', //          110
  ` * ${FENCE}`, //                                          111
  ' */', //                                                  112
  'export const hiding = 7;', //                             113
].join('\n');

const FILES: Record<string, string> = {
  'package.json': '{ "type": "module" }\n',
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      target: 'ES2023',
      lib: ['ES2023'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      verbatimModuleSyntax: true,
      types: [],
      paths: { 'fixture-pkg': ['./src/index.ts'], 'fixture-pkg/extra': ['./src/extra.ts'] },
    },
  }),
  'src/index.ts': ENTRY,
  'src/shape.ts':
    'export interface Shape {\n  readonly width: number;\n}\nexport class Box {\n  readonly width = 1;\n}\n',
  'src/context.ts': 'export declare const step: number;\n',
  'src/extra.ts': 'export const extra = 1;\n',
  'docs/cut.md': `# Cut\n\n${FENCE}ts\nconst hidden = 1;\n// ---cut---\nexport const shown = hidden;\n${FENCE}\n`,
};

function writeRoot(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'api-examples-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function check(root: string, pages: string[] = []): SnippetReport {
  return checkSnippets({
    root,
    pages,
    workDir: join(root, '.cache', 'snippets'),
    tsconfig: join(root, 'tsconfig.json'),
    api: {
      entries: { 'fixture-pkg': 'src/index.ts', 'fixture-pkg/extra': 'src/extra.ts' },
      context: 'src/context.ts',
    },
  });
}

describe('checkSnippets with the API', () => {
  const roots: string[] = [];
  let report: SnippetReport;

  beforeAll(() => {
    const root = writeRoot(FILES);
    roots.push(root);
    report = check(root, ['docs/cut.md']);
  }, 120_000);

  afterAll(() => {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  it('compiles the ts blocks of exported declarations and their members, a fenceless @example too, but not internal, private or unexported ones', () => {
    expect(report.apiBlocks).toBe(8);
  });

  it('fails an example that does not compile, at its line of the source file, naming the declaration', () => {
    expect(report.problems).toContainEqual({
      page: 'src/index.ts',
      line: 47,
      message: expect.stringMatching(
        /^TS2322: Type 'number' is not assignable to type 'string'\. \(in the ts block of bare's TSDoc from line 46\)$/,
      ),
    });
  });

  it("compiles an example with its entry's exports (a class exported as a type only, as a type), the context's names and its prelude in scope, and reads a title line before a fence as a title", () => {
    const expected = new Set([47, 82, 90, 107, 108]);
    const others = report.problems.filter(
      ({ page, line }) => page.startsWith('src/') && !expected.has(line),
    );
    expect(others).toEqual([]);
  });

  it('fails a // ---cut--- line on a page, which shows its blocks whole', () => {
    expect(report.problems).toContainEqual({
      page: 'docs/cut.md',
      line: 3,
      message: expect.stringContaining(
        'a `// ---cut---` line hides a prelude in TSDoc examples only',
      ),
    });
    expect(report.problems).toHaveLength(6);
  });

  it('fails an example that uses something @internal, which the published types leave out, at its line', () => {
    expect(report.problems).toContainEqual({
      page: 'src/index.ts',
      line: 82,
      message: expect.stringMatching(
        /^uses `find`, which is @internal: .* \(in the ts block of usesInternal's TSDoc from line 81\)$/,
      ),
    });
  });

  it("fails an example that uses another subpath's export without importing it: a reader imports only from the page's entry and the root unprompted", () => {
    expect(report.problems).toContainEqual({
      page: 'src/index.ts',
      line: 90,
      message: expect.stringMatching(/^TS2304: Cannot find name 'extra'\./),
    });
  });

  it('fails a prelude that hides a value import a reader must write, or gives a context name another meaning', () => {
    expect(report.problems).toContainEqual({
      page: 'src/index.ts',
      line: 107,
      message: expect.stringMatching(
        /^the prelude hides `import \{ add \} from 'fixture-pkg';`, which a reader must write/,
      ),
    });
    expect(report.problems).toContainEqual({
      page: 'src/index.ts',
      line: 108,
      message: expect.stringMatching(
        /^the prelude redeclares `step`, which the examples' context .* gives one meaning/,
      ),
    });
  });

  it('fails an example that uses a name no entry exports any more (a renamed function)', () => {
    const root = writeRoot({
      ...FILES,
      'src/index.ts': ENTRY.replace('export function add(', 'export function plus(').replace(
        'return a + b;',
        'return add(a, b);\n}\nfunction add(a: number, b: number): number {\n  return a + b;',
      ),
    });
    roots.push(root);
    const renamed = check(root);
    expect(renamed.problems).toContainEqual({
      page: 'src/index.ts',
      line: 6,
      message: expect.stringMatching(/^TS2304: Cannot find name 'add'\./),
    });
  }, 120_000);

  it('fails an example whose prelude leaves nothing to show', () => {
    const root = writeRoot({
      ...FILES,
      'src/index.ts': `${ENTRY}\n/**\n * @example\n * ${FENCE}ts\n * const x = 1;\n * // ---cut---\n * ${FENCE}\n */\nexport const empty = 3;\n`,
    });
    roots.push(root);
    expect(check(root).problems).toContainEqual({
      page: 'src/index.ts',
      line: 118,
      message:
        "nothing follows the `// ---cut---` line: the site would show an empty example (in the ts block of empty's TSDoc from line 116)",
    });
  }, 120_000);

  it('writes each example as a module: its code line for line, then its imports', () => {
    const root = roots[0] ?? '';
    const module = readFileSync(
      join(root, '.cache', 'snippets', 'api', 'src', 'index', 'line-19.mts'),
      'utf8',
    );
    expect(module.split('\n')[0]).toBe('const next: number = new Counter().increment(step);');
    expect(module).toContain(
      "import { add, Counter, bare, withPrelude, type Box, type Shape, Store, usesInternal, needsExtra, titled, hiding } from 'fixture-pkg';",
    );
    expect(module).toMatch(/import \{ step \} from '(\.\.\/)+src\/context\.js';/);
  });
});
