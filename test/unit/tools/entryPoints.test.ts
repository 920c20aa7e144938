import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENTRY_POINTS } from '../../../tools/sdk/entryPoints.js';

const read = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

describe('the package’s entry points', () => {
  it('are the same in package.json’s exports, tsconfig’s paths and the repo’s aliases', () => {
    const exported = Object.keys(read('package.json').exports)
      .filter((subpath) => subpath !== './package.json')
      .map((subpath) => (subpath === '.' ? 'sqs-inbox' : `sqs-inbox/${subpath.slice(2)}`));
    const paths = read('tsconfig.json').compilerOptions.paths as Record<string, string[]>;

    expect(exported.sort()).toEqual(Object.keys(ENTRY_POINTS).sort());
    expect(Object.keys(paths).sort()).toEqual(Object.keys(ENTRY_POINTS).sort());
    for (const [name, source] of Object.entries(ENTRY_POINTS)) {
      expect(paths[name]).toEqual([`./${source}`]);
      expect(existsSync(source)).toBe(true);
    }
  });

  it('each have an API report in etc/', () => {
    for (const name of Object.keys(ENTRY_POINTS)) {
      expect(existsSync(`etc/${name.replace('/', '-')}.api.md`)).toBe(true);
    }
  });
});
