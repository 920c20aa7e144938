import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { onShutdown } from '../cli/shutdown.js';
import { ENTRY_POINTS } from '../sdk/entryPoints.js';
import { checkPagesInBrowser } from './browserCheck.js';
import { CUT_LINE } from './cutPrelude.js';
import { checkedPages } from './docPages.js';
import { checkSiteLinks, htmlFiles, pageUrl } from './siteLinks.js';
import { checkSnippets } from './snippetCheck.js';
import { serveStaticSite } from './staticSite.js';

/** One step of the docs check: its name and whether it passed (it printed its own report). */
export interface StepResult {
  readonly step: string;
  readonly ok: boolean;
}

/** Where the built site is, relative to the repository root. */
export const SITE_DIST = 'docs/.vitepress/dist';
/** Where `npm run docs:check` writes its screenshots, relative to the repository root. */
export const SCREENSHOT_DIR = '.cache/docs-check';
/**
 * The module of the names the API's examples use undeclared, relative to the repository root.
 *
 * @example
 * ```ts
 * checkSnippets({ root, pages, workDir, api: { entries: ENTRY_POINTS, context: EXAMPLE_CONTEXT } });
 * ```
 */
export const EXAMPLE_CONTEXT = 'tools/docs/exampleContext.ts';
/** A code block of a built page (Shiki's `<pre>`). */
const CODE_BLOCK = /<pre\b[\s\S]*?<\/pre>/g;
/** The guide page photographed next to the home page. */
const GUIDE_PAGE = '/getting-started/quick-start';

function seconds(startMillis: number): string {
  return `${((performance.now() - startMillis) / 1000).toFixed(1)} s`;
}

/** Prints a step's summary line, then each problem indented; returns the step's result. */
function report(step: string, summary: string, problems: readonly string[]): StepResult {
  const verdict = problems.length === 0 ? 'ok' : `${problems.length} problem(s)`;
  console.log(`docs:check ${step}: ${summary}: ${verdict}`);
  for (const problem of problems) console.log(`  ${problem}`);
  return { step, ok: problems.length === 0 };
}

/**
 * Step (a): the code of the pages and of the public API's TSDoc (see `checkSnippets`), in a
 * scratch folder of its own under .cache/, removed after.
 *
 * @example
 * ```ts
 * const { ok } = runSnippetCheck(projectRoot);
 * ```
 */
export function runSnippetCheck(root: string): StepResult {
  const start = performance.now();
  // A folder of this run's own: two checks at once (npm test and docs:check) do not clobber each other.
  mkdirSync(join(root, '.cache'), { recursive: true });
  const workDir = mkdtempSync(join(root, '.cache', 'docs-snippets-'));
  const api = { entries: ENTRY_POINTS, context: EXAMPLE_CONTEXT };
  let result: ReturnType<typeof checkSnippets>;
  try {
    result = checkSnippets({ root, pages: checkedPages(root), workDir, api });
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  const { pages, compiled, apiBlocks, skippedOldApi, includes } = result;
  const summary = `${compiled} ts blocks compiled (${skippedOldApi} old-api skipped) and ${includes} includes on ${pages} pages, and ${apiBlocks} ts blocks of the API's TSDoc, in ${seconds(start)}`;
  const problems = result.problems.map(({ page, line, message }) => `${page}:${line}: ${message}`);
  return report('snippets', summary, problems);
}

/**
 * Step (b): every internal link and `#anchor` of the built site resolves (see `checkSiteLinks`),
 * and no code block of a page shows an example's prelude (`docs:build` cuts them).
 *
 * @example
 * ```ts
 * const { ok } = runLinkCheck(join(projectRoot, SITE_DIST));
 * ```
 */
export function runLinkCheck(dist: string): StepResult {
  const start = performance.now();
  const result = checkSiteLinks(dist);
  const summary = `${result.links} internal links on ${result.pages} built pages, and no example's prelude shown, in ${seconds(start)}`;
  const problems = result.broken.map(({ page, href, reason }) => `${page}: ${href}: ${reason}`);
  // In code blocks only: prose may name the line (the changelog does).
  const showingCut = htmlFiles(dist).filter((page) =>
    [...readFileSync(join(dist, page), 'utf8').matchAll(CODE_BLOCK)].some(([block]) =>
      block.includes(CUT_LINE.slice(3)),
    ),
  );
  for (const page of showingCut) {
    problems.push(
      `${page}: shows a \`${CUT_LINE}\` line: the build did not cut an example's prelude`,
    );
  }
  return report('links', summary, problems);
}

/**
 * Step (c): every built page but 404.html, served on 127.0.0.1, loads in headless Chromium
 * without an error (see `checkPagesInBrowser`); screenshots of the home page and a guide page.
 *
 * @example
 * ```ts
 * const { ok } = await runBrowserCheck(projectRoot, '/usr/bin/chromium');
 * ```
 */
export async function runBrowserCheck(root: string, chromiumPath: string): Promise<StepResult> {
  const start = performance.now();
  rmSync(join(root, SCREENSHOT_DIR), { recursive: true, force: true });
  const site = await serveStaticSite(join(root, SITE_DIST));
  onShutdown(() => site.close());
  const pages = htmlFiles(join(root, SITE_DIST))
    .filter((file) => file !== '404.html')
    .map(pageUrl);
  const shots = new Map([
    ['/', join(root, SCREENSHOT_DIR, 'home.png')],
    [GUIDE_PAGE, join(root, SCREENSHOT_DIR, 'guide.png')],
  ]);
  const missing = [...shots.keys()].filter((page) => !pages.includes(page));
  const failures = await checkPagesInBrowser({
    origin: site.origin,
    pages,
    chromiumPath,
    screenshots: shots,
  });
  await site.close();
  const problems = [
    ...missing.map((page) => `${page}: no such page to photograph`),
    ...failures.map(({ page, message }) => `${page}: ${message}`),
  ];
  const written = [...shots.values()].filter((file) => existsSync(file));
  const summary = `${pages.length} pages loaded in Chromium in ${seconds(start)}; screenshots: ${written.join(', ') || 'none'}`;
  return report('browser', summary, problems);
}
