import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Markdown files outside docs/ whose code blocks are checked like the site's pages. */
export const ROOT_PAGES = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md'] as const;

/**
 * Folders of docs/ that `npm run docs:build` writes (TypeDoc's API pages, the reference pages
 * rendered from TSDoc): their code comes from TSDoc `@example`s and is not checked here.
 */
export const GENERATED_FOLDERS = ['docs/api', 'docs/reference'] as const;

/**
 * Whether a page may hold ```` ```ts old-api ```` blocks (code of an older release, never
 * compiled): the changelog and the migration notes only.
 *
 * @example
 * ```ts
 * allowsOldApi('docs/migrating-from-0.1.md') // => true
 * allowsOldApi('docs/features/steps.md') // => false
 * ```
 */
export function allowsOldApi(page: string): boolean {
  return page === 'CHANGELOG.md' || /^docs\/migrating[^/]*\.md$/.test(page);
}

function markdownUnder(root: string, folder: string): string[] {
  if (GENERATED_FOLDERS.some((generated) => folder === generated)) return [];
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) {
      return entry.name.startsWith('.') || entry.name === 'node_modules'
        ? []
        : markdownUnder(root, path);
    }
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/**
 * The markdown files whose code blocks and includes the docs check reads, relative to `root`
 * with `/`, sorted: every page under docs/ but the generated folders (and dot-folders such as
 * .vitepress), and the {@link ROOT_PAGES} that exist.
 *
 * @example
 * ```ts
 * checkedPages(projectRoot) // => ['CHANGELOG.md', 'README.md', 'docs/concepts/batching.md', …]
 * ```
 */
export function checkedPages(root: string): string[] {
  const docs = existsSync(join(root, 'docs')) ? markdownUnder(root, 'docs') : [];
  const rootPages = ROOT_PAGES.filter((page) => existsSync(join(root, page)));
  return [...rootPages, ...docs].sort();
}

/**
 * The markdown files under a folder, recursively, as absolute paths, sorted.
 *
 * @example
 * ```ts
 * markdownFiles(join(projectRoot, 'docs', 'api')) // => ['/repo/docs/api/index.md', '/repo/docs/api/sqs-inbox.md', …]
 * ```
 */
export function markdownFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}
