import { describe, expect, it } from 'vitest';
import { describeBytes, overBudget, parseSizeBudget } from '../../../tools/release/sizeBudget.js';

const budget = parseSizeBudget('{ "tarballBytes": 1000000, "entryMinGzipBytes": { ".": 40000 } }');
const inputs = Array.from({ length: 10 }, (_, index) => ({
  path: `dist/esm/m${index}.js`,
  bytes: (index + 1) * 1000,
}));

describe('the size budget', () => {
  it('finds nothing over budget when each figure is at most its budget', () => {
    const measured = { tarballBytes: 1_000_000, entries: { '.': { gzipBytes: 40_000, inputs } } };

    expect(overBudget(budget, measured)).toEqual([]);
  });

  it('names the tarball one byte over, with its figure and its budget', () => {
    const measured = { tarballBytes: 1_000_001, entries: { '.': { gzipBytes: 1, inputs } } };

    const [problem, ...rest] = overBudget(budget, measured);

    expect(rest).toEqual([]);
    expect(problem).toContain(
      'the packed tarball is 1,000,001 B (976.6 KiB), over its budget of 1,000,000 B (976.6 KiB)',
    );
  });

  it('names an entry over budget with its figure, its budget and its eight largest inputs, largest first', () => {
    const measured = { tarballBytes: 1, entries: { '.': { gzipBytes: 40_001, inputs } } };

    const [problem] = overBudget(budget, measured);

    expect(problem).toContain(
      'the entry ., bundled and minified, is 40,001 B (39.1 KiB) gzipped, over its budget of 40,000 B (39.1 KiB)',
    );
    const listed = problem
      ?.split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/).at(-1));
    const largest = ['m9', 'm8', 'm7', 'm6', 'm5', 'm4', 'm3', 'm2'];
    expect(listed).toEqual(largest.map((name) => `dist/esm/${name}.js`));
  });

  it('reports a budgeted entry that the package does not export', () => {
    expect(overBudget(budget, { tarballBytes: 1, entries: {} })).toEqual([
      "etc/size-budget.json budgets the entry ., which package.json's exports does not have",
    ]);
  });

  it('refuses a budget that is not a positive whole number, naming it', () => {
    expect(() => parseSizeBudget('{ "tarballBytes": 1.5, "entryMinGzipBytes": {} }')).toThrow(
      'tarballBytes must be a positive whole number of bytes (given 1.5)',
    );
    expect(() =>
      parseSizeBudget('{ "tarballBytes": 10, "entryMinGzipBytes": { "./cdk": 0 } }'),
    ).toThrow('./cdk must be a positive whole number of bytes (given 0)');
    expect(() => parseSizeBudget('{ "entryMinGzipBytes": {} }')).toThrow('(given undefined)');
  });

  it('writes bytes exactly, with KiB or MiB beside them', () => {
    expect([describeBytes(512), describeBytes(41_000), describeBytes(1_380_687)]).toEqual([
      '512 B',
      '41,000 B (40.0 KiB)',
      '1,380,687 B (1.32 MiB)',
    ]);
  });
});
