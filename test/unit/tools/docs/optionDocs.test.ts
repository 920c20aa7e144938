import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  constantSummaries,
  optionDocProblems,
} from '../../../../tools/docs/reference/optionDocProblems.js';
import { OPTION_SECTIONS } from '../../../../tools/docs/reference/optionSections.js';
import { projectRoot } from '../../../../tools/emulator/paths.js';

const VALUES = 'src/constants/values.ts';

/** The names of the interfaces a file exports whose names end as given. */
function exportedInterfaces(file: string, ending: string): string[] {
  const pattern = new RegExp(`^export interface (\\w+${ending})\\b`, 'gm');
  return [...readFileSync(`${projectRoot}/${file}`, 'utf8').matchAll(pattern)].map(
    (m) => m[1] ?? '',
  );
}

describe('the TSDoc the reference pages are generated from', () => {
  it.each(OPTION_SECTIONS.map((section) => [section.heading, section] as const))(
    'every option of %s has a summary and a @defaultValue or is required',
    (_heading, section) => {
      expect(optionDocProblems(projectRoot, section)).toEqual([]);
    },
  );

  it("lists every construct's props and every option group in the configuration page", () => {
    const listed = new Set(
      OPTION_SECTIONS.flatMap((section) => section.interfaces.map((i) => i.name)),
    );
    const cdk = readdirSync(`${projectRoot}/src/cdk`).filter((file) => file.endsWith('.ts'));
    const groups = [
      ...cdk.flatMap((file) => exportedInterfaces(`src/cdk/${file}`, 'Props')),
      ...exportedInterfaces('src/core/ProcessorSettings.ts', 'Settings'),
      ...exportedInterfaces('src/relay/createOutboxRelay.ts', '(?:Settings|Options)'),
    ];

    expect(groups.filter((name) => !listed.has(name))).toEqual([]);
  });

  it('every variable of the environment contract has a summary', () => {
    const missing = [...constantSummaries(projectRoot, VALUES, 'InboxEnvironment')].filter(
      ([, summary]) => summary === '',
    );

    expect(missing.map(([name]) => name)).toEqual([]);
  });

  it('every metric has a summary that opens with its CloudWatch unit', () => {
    const summaries = [...constantSummaries(projectRoot, VALUES, 'InboxMetric')];
    const withoutUnit = summaries.filter(
      ([, summary]) => !/^`(Count|Milliseconds|Seconds)`: \S/.test(summary),
    );

    expect(withoutUnit.map(([name]) => name)).toEqual([]);
  });
});
