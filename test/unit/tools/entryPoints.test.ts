import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENTRY_POINTS } from '../../../tools/sdk/entryPoints.js';

const read = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

describe('the package’s entry points', () => {
  it('are read from every one of package.json’s exports, each built from a source that exists, and tsconfig’s paths list the same', () => {
    const exported = Object.keys(read('package.json').exports).filter(
      (subpath) => subpath !== './package.json',
    );
    const paths = read('tsconfig.json').compilerOptions.paths as Record<string, string[]>;

    expect(Object.keys(ENTRY_POINTS)).toHaveLength(exported.length);
    expect(ENTRY_POINTS['sqs-inbox/constants']).toBe('src/constants/index.ts');
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
