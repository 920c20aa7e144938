import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A link of the built site that leads nowhere: the page it is on, its `href`, and why. */
export interface BrokenLink {
  readonly page: string;
  readonly href: string;
  readonly reason: string;
}

/** What the link check read and found. */
export interface LinkReport {
  readonly pages: number;
  readonly links: number;
  readonly broken: readonly BrokenLink[];
}

const ORIGIN = 'http://site.invalid';
const EXTERNAL = /^([a-z][a-z\d+.-]*:|\/\/)/i;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

/** `decodeURIComponent`, but a malformed escape stays as written (and then matches nothing). */
function decodeUri(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ENTITIES[name] ?? '');
}

/**
 * The `.html` files under `dist`, relative to it with `/`, sorted.
 *
 * @example
 * ```ts
 * htmlFiles('docs/.vitepress/dist') // => ['404.html', 'api/index.html', 'index.html', …]
 * ```
 */
export function htmlFiles(dist: string, folder = ''): string[] {
  return readdirSync(join(dist, folder), { withFileTypes: true })
    .flatMap((entry) => {
      const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) return htmlFiles(dist, path);
      return entry.name.endsWith('.html') ? [path] : [];
    })
    .sort();
}

/**
 * The URL a built page is served at with VitePress's `cleanUrls`: `a/b.html` at `/a/b`,
 * `a/index.html` at `/a/`.
 *
 * @example
 * ```ts
 * pageUrl('concepts/batching.html') // => '/concepts/batching'
 * ```
 */
export function pageUrl(file: string): string {
  return `/${file.replace(/(^|\/)index\.html$/, '$1').replace(/\.html$/, '')}`;
}

/** The file of `dist` a path is served from (clean URL, `.html`, folder index or asset), if any. */
export function servedFile(dist: string, urlPath: string): string | undefined {
  const path = decodeUri(urlPath).replace(/^\/+/, '');
  const candidates =
    path === '' || path.endsWith('/')
      ? [`${path}index.html`]
      : [path, `${path}.html`, `${path}/index.html`];
  return candidates.find((candidate) => {
    const file = join(dist, candidate);
    return !candidate.split('/').includes('..') && existsSync(file) && statSync(file).isFile();
  });
}

function idsOf(html: string): Set<string> {
  return new Set(
    [...html.matchAll(/\sid="([^"]*)"/g)].map((match) => decodeEntities(match[1] ?? '')),
  );
}

function hrefsOf(html: string): string[] {
  const hrefs = [...html.matchAll(/<a\s[^>]*?href="([^"]*)"/g)].map((m) =>
    decodeEntities(m[1] ?? ''),
  );
  return [...new Set(hrefs)].filter((href) => href !== '' && !EXTERNAL.test(href));
}

/** Why an internal link from the page at `fromUrl` leads nowhere, or undefined if it resolves. */
function brokenReason(
  dist: string,
  ids: (file: string) => Set<string>,
  fromUrl: string,
  href: string,
) {
  const url = new URL(href, ORIGIN + fromUrl);
  const file = servedFile(dist, url.pathname);
  if (file === undefined) return `no page or file ${url.pathname}`;
  const anchor = decodeUri(url.hash.slice(1));
  if (anchor === '' || !file.endsWith('.html') || ids(file).has(anchor)) return undefined;
  return `no anchor #${anchor} on ${pageUrl(file)}`;
}

/**
 * Checks every internal link of a built VitePress site (`<a href>` in each page: the content,
 * the nav and the sidebar): its page or file exists under `dist`, and its `#anchor` is the `id`
 * of an element of that page. Links with a scheme (`https:`, `mailto:`) are not followed.
 *
 * @example
 * ```ts
 * checkSiteLinks('docs/.vitepress/dist').broken
 * // => [{ page: '/concepts/batching', href: '/features/steps#nope', reason: 'no anchor #nope on /features/steps' }]
 * ```
 */
export function checkSiteLinks(dist: string): LinkReport {
  const cache = new Map<string, Set<string>>();
  const html = (file: string) => readFileSync(join(dist, file), 'utf8');
  const ids = (file: string) =>
    cache.get(file) ?? cache.set(file, idsOf(html(file))).get(file) ?? new Set();
  const pages = htmlFiles(dist);
  const broken: BrokenLink[] = [];
  let links = 0;
  for (const file of pages) {
    const page = pageUrl(file);
    for (const href of hrefsOf(html(file))) {
      links++;
      const reason = brokenReason(dist, ids, page, href);
      if (reason !== undefined) broken.push({ page, href, reason });
    }
  }
  return { pages: pages.length, links, broken };
}
