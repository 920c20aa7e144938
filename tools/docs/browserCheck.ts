import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import pLimit from 'p-limit';
import { type Browser, chromium, type Page } from 'playwright-core';
import { CommandError } from '../cli/runCommand.js';
import { onShutdown } from '../cli/shutdown.js';

/** Something that went wrong while a page loaded. */
export interface PageFailure {
  readonly page: string;
  readonly message: string;
}

/** Which pages to load, from where, with which browser, and which to photograph. */
export interface BrowserCheckInput {
  /** The site's origin, `http://127.0.0.1:PORT` (a server over the built site). */
  readonly origin: string;
  /** The pages' paths (`/`, `/concepts/batching`). */
  readonly pages: readonly string[];
  readonly chromiumPath: string;
  /** A page's path → the PNG to write of it, whole page. */
  readonly screenshots: ReadonlyMap<string, string>;
  readonly concurrentPages?: number;
}

/** Chromium's flags for a root user in a container, with nothing that phones home. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const HYDRATED = "document.querySelector('#app')?.__vue_app__ !== undefined";
const PAGE_TIMEOUT_MILLIS = 30_000;

/**
 * Starts the Chromium of the Debian package (playwright-core downloads no browser); fails with
 * the command that installs it when it is missing. The browser closes when the command stops.
 *
 * @example
 * ```ts
 * const browser = await launchChromium('/usr/bin/chromium');
 * ```
 */
export async function launchChromium(executablePath: string): Promise<Browser> {
  if (!existsSync(executablePath)) {
    throw new CommandError(
      `no Chromium at ${executablePath}: install it with \`apt-get update && apt-get install -y chromium\` (as root)`,
    );
  }
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  onShutdown(() => browser.close());
  return browser;
}

/** Records on `failures` whatever goes wrong on `page`, and refuses requests to any other origin. */
async function watch(page: Page, origin: string, failures: string[]): Promise<void> {
  const refused = new Set<string>();
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`) || url.startsWith('data:')) return route.continue();
    refused.add(url);
    failures.push(`request outside the site: ${url}`);
    return route.abort('blockedbyclient');
  });
  page.on('console', (message) => {
    if (message.type() === 'error') failures.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => failures.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => {
    if (refused.has(request.url())) return;
    failures.push(
      `request failed: ${request.url()} (${request.failure()?.errorText ?? 'no reason'})`,
    );
  });
  page.on('response', (response) => {
    if (response.status() >= 400) failures.push(`HTTP ${response.status()} for ${response.url()}`);
  });
}

async function loadPage(browser: Browser, input: BrowserCheckInput, path: string) {
  const failures: string[] = [];
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    await watch(page, input.origin, failures);
    await page.goto(input.origin + path, { waitUntil: 'load', timeout: PAGE_TIMEOUT_MILLIS });
    await page.waitForFunction(HYDRATED, undefined, { timeout: PAGE_TIMEOUT_MILLIS });
    const screenshot = input.screenshots.get(path);
    if (screenshot !== undefined) {
      mkdirSync(dirname(screenshot), { recursive: true });
      await page.screenshot({ path: screenshot, fullPage: true });
    }
  } catch (error) {
    failures.push(`did not load: ${error instanceof Error ? error.message.split('\n')[0] : error}`);
  } finally {
    await page.close();
  }
  return failures.map((message) => ({ page: path, message }));
}

/**
 * Loads each page in headless Chromium, a few at a time, and waits until VitePress has
 * hydrated it; a console error, an uncaught page error, a failed request, a response with
 * status 400 or more, or any request to another origin fails the page. Writes the screenshots
 * asked for. Returns the failures, page by page in order.
 *
 * @example
 * ```ts
 * const failures = await checkPagesInBrowser({ origin: site.origin, pages: ['/', '/testing'],
 *   chromiumPath: '/usr/bin/chromium', screenshots: new Map([['/', '.cache/docs-check/home.png']]) });
 * ```
 */
export async function checkPagesInBrowser(input: BrowserCheckInput): Promise<PageFailure[]> {
  const browser = await launchChromium(input.chromiumPath);
  try {
    const limit = pLimit(input.concurrentPages ?? 4);
    const results = await Promise.all(
      input.pages.map((path) => limit(() => loadPage(browser, input, path))),
    );
    return results.flat();
  } finally {
    await browser.close();
  }
}
