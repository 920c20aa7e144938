import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSnippets, type SnippetReport } from '../../../../tools/docs/snippetCheck.js';
import { projectRoot } from '../../../../tools/emulator/paths.js';

const TSCONFIG = join(projectRoot, 'tsconfig.json');
const COMPILES = [
  '```ts',
  "import { createBatchProcessor } from 'sqs-inbox';",
  "import { InboxError } from 'sqs-inbox/errors';",
  'const ledger = createBatchProcessor(async () => {}, { store: undefined as never, consumer: "ledger" });',
  'export const handler = ledger.process;',
  'export const base = InboxError.name;',
  '```',
].join('\n');
const SAME_NAME_AGAIN = '```ts\nconst ledger = 1;\nexport { ledger };\n```';
const OLD_API = '```ts old-api\nconst processor = gone({ table: 1 });\n```';
const BROKEN = [
  '# Broken', //                                       1
  '', //                                               2
  '```ts', //                                          3
  "import { createBatchProcessor } from 'sqs-inbox';", // 4
  '', //                                               5
  'const count: number = createBatchProcessor;', //   6
  '```', //                                            7
].join('\n');

function writeSite(pages: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'docs-snippets-'));
  // As the repository's: a .ts file is an ECMAScript module (included files compile as such).
  writeFileSync(join(root, 'package.json'), '{ "type": "module" }\n');
  for (const [page, text] of Object.entries(pages)) {
    mkdirSync(dirname(join(root, page)), { recursive: true });
    writeFileSync(join(root, page), text);
  }
  return root;
}

function check(root: string, pages: string[]): SnippetReport {
  return checkSnippets({
    root,
    pages,
    workDir: join(root, '.cache', 'snippets'),
    tsconfig: TSCONFIG,
  });
}

describe('checkSnippets', () => {
  const roots: string[] = [];
  let good: SnippetReport;
  let bad: SnippetReport;

  beforeAll(() => {
    const goodPages = {
      'README.md': `# Read me\n\n${COMPILES}\n`,
      'docs/features/steps.md': `# Steps\n\n${COMPILES}\n\n${SAME_NAME_AGAIN}\n\n<<< @/../examples/a.ts\n`,
      'docs/migrating-from-powertools.md': `# Migrating\n\n${OLD_API}\n`,
      'CHANGELOG.md': `# Changelog\n\n${OLD_API}\n`,
      'examples/a.ts': 'export const a = 1;\n',
    };
    const badPages = {
      'docs/broken.md': BROKEN,
      'docs/concepts/batching.md': `# Batching\n\n${OLD_API}\n`,
      'docs/includes.md': '# Includes\n\n<<< @/../examples/missing.ts\n\n<<< ./part.ts#handler\n',
      'docs/part.ts': 'export const part = 1;\n',
      'docs/quoted.md': "# Quoted\n\n> A note:\n> ```ts\n> const quoted: number = 'a';\n> ```\n",
      'docs/snippets.md': '# Snippets\n\n<<< ./snippets/notCompiling.ts\n',
      'docs/snippets/notCompiling.ts': "export const notCompiling: number = 'a';\n",
    };
    const goodRoot = writeSite(goodPages);
    const badRoot = writeSite(badPages);
    roots.push(goodRoot, badRoot);
    good = check(
      goodRoot,
      Object.keys(goodPages).filter((page) => page.endsWith('.md')),
    );
    bad = check(
      badRoot,
      Object.keys(badPages).filter((page) => page.endsWith('.md')),
    );
  }, 180_000);

  afterAll(() => {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  it('passes pages whose ts blocks compile against the package entries, each block a module of its own, and skips old-api blocks in CHANGELOG.md and docs/migrating*.md', () => {
    expect(good.problems).toEqual([]);
    expect(good).toMatchObject({ pages: 4, compiled: 3, skippedOldApi: 2, includes: 1 });
  });

  it('fails a ts block that does not compile, naming the page, the line of the error and tsc’s message', () => {
    expect(bad.problems).toContainEqual({
      page: 'docs/broken.md',
      line: 6,
      message: expect.stringMatching(
        /^TS2322: Type .* is not assignable to type 'number'.* \(in the ts block from line 3\)$/s,
      ),
    });
  });

  it('fails an old-api block on a page other than the changelog and the migration notes', () => {
    expect(bad.problems).toContainEqual({
      page: 'docs/concepts/batching.md',
      line: 3,
      message: expect.stringContaining('`ts old-api` block'),
    });
  });

  it('fails an include of a missing file, and of a #region the file does not have', () => {
    expect(bad.problems).toContainEqual({
      page: 'docs/includes.md',
      line: 3,
      message: 'includes @/../examples/missing.ts: no such file',
    });
    expect(bad.problems).toContainEqual({
      page: 'docs/includes.md',
      line: 5,
      message: 'includes ./part.ts: no #region handler',
    });
  });

  it('fails a ts block inside a blockquote that does not compile, at its line', () => {
    expect(bad.problems).toContainEqual({
      page: 'docs/quoted.md',
      line: 5,
      message: expect.stringMatching(/^TS2322: .*\(in the ts block from line 4\)$/s),
    });
  });

  it('fails an included ts file that does not compile (one under docs/, which no typecheck reads), at the include', () => {
    expect(bad.problems).toContainEqual({
      page: 'docs/snippets.md',
      line: 3,
      message: expect.stringMatching(/^TS2322: .*\(in the included .*notCompiling\.ts:1\)$/s),
    });
    expect(bad.problems).toHaveLength(6);
  });
});
