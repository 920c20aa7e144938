import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allowsOldApi, checkedPages } from '../../../../tools/docs/docPages.js';
import { ENTRY_POINTS } from '../../../../tools/sdk/entryPoints.js';

describe('the API reference’s configuration', () => {
  it('documents every entry point of package.json, each module named after its import path', () => {
    const typedoc = JSON.parse(readFileSync('typedoc.json', 'utf8')) as { entryPoints: string[] };
    expect([...typedoc.entryPoints].sort()).toEqual(Object.values(ENTRY_POINTS).sort());
    for (const [name, source] of Object.entries(ENTRY_POINTS)) {
      expect(readFileSync(source, 'utf8')).toMatch(new RegExp(`^ \\* @module ${name}$`, 'm'));
    }
  });
});

describe('the checked pages', () => {
  it('are the docs pages but the generated API and reference pages and dot-folders, and the root’s markdown', () => {
    const root = mkdtempSync(join(tmpdir(), 'docs-pages-'));
    try {
      const files = [
        'README.md',
        'CHANGELOG.md',
        'docs/index.md',
        'docs/concepts/batching.md',
        'docs/api/index.md',
        'docs/reference/errors.md',
        'docs/.vitepress/notes.md',
        'docs/public/a.svg',
      ];
      for (const file of files) {
        mkdirSync(dirname(join(root, file)), { recursive: true });
        writeFileSync(join(root, file), '# Page\n');
      }
      expect(checkedPages(root)).toEqual([
        'CHANGELOG.md',
        'README.md',
        'docs/concepts/batching.md',
        'docs/index.md',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('allow old-api blocks only in the changelog and the migration notes', () => {
    expect(allowsOldApi('CHANGELOG.md')).toBe(true);
    expect(allowsOldApi('docs/migrating-from-powertools.md')).toBe(true);
    expect(allowsOldApi('docs/changelog.md')).toBe(false);
    expect(allowsOldApi('docs/concepts/migrating.md')).toBe(false);
    expect(allowsOldApi('README.md')).toBe(false);
  });
});
