// `npm run docs:build`: the documentation site, offline, into docs/.vitepress/dist — TypeDoc
// writes the API reference (docs/api/) and its JSON model (.cache/docs/typedoc.json),
// the examples' preludes (above `// ---cut---`) are cut from the API pages,
// scripts/docsReference.ts renders the configuration, environment, metrics and errors pages from
// that model (docs/reference/), and VitePress builds the site. Each stage runs in a process group
// of its own; a signal stops the one running.
//
// typedoc.json's choices: one page per entry point (`outputFileStrategy: modules`: 9 pages, where
// a page per member made 223, each carrying the whole API sidebar, and a longer build and
// browser check); parameters and nested members as tables, and `useHTMLAnchors`, so that every
// link TypeDoc writes lands on an id of the built page (its own numbering of same-named headings
// differs from VitePress's; `npm run docs:check` finds such links); no source links (no
// repository URL yet); warnings, a broken `{@link}` among them, fail the build.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { runChild } from '../tools/cli/runChild.js';
import { CommandError, runCommand } from '../tools/cli/runCommand.js';
import { withoutPreludes } from '../tools/docs/cutPrelude.js';
import { markdownFiles } from '../tools/docs/docPages.js';
import { projectRoot } from '../tools/emulator/paths.js';

interface Stage {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Work done in this process once the command succeeded; returns what to print. */
  readonly afterwards?: () => string;
}

/** The API pages without the examples' preludes (the lines up to `// ---cut---`). */
function cutPreludes(): string {
  const pages = markdownFiles(join(projectRoot, 'docs', 'api'));
  let cut = 0;
  for (const page of pages) {
    const markdown = readFileSync(page, 'utf8');
    const shown = withoutPreludes(markdown);
    if (shown !== markdown) cut++;
    writeFileSync(page, shown);
  }
  return `${cut} of ${pages.length} API pages had examples' preludes to hide`;
}

const bin = (name: string) => join(projectRoot, 'node_modules', '.bin', name);

const STAGES: readonly Stage[] = [
  { name: 'typedoc', command: bin('typedoc'), args: [], afterwards: cutPreludes },
  {
    name: 'reference pages',
    command: process.execPath,
    args: [
      '--import',
      'tsx',
      'scripts/docsReference.ts',
      '--typedoc-json',
      '.cache/docs/typedoc.json',
      '--out',
      'docs/reference',
    ],
  },
  { name: 'vitepress build', command: bin('vitepress'), args: ['build', 'docs'] },
];

new Command('npm run docs:build')
  .description('build the documentation site into docs/.vitepress/dist (offline)')
  .parse();

await runCommand('npm run docs:build', async () => {
  const times: string[] = [];
  for (const stage of STAGES) {
    const start = performance.now();
    console.log(`docs:build: ${stage.name}`);
    const { code } = await runChild(stage.command, stage.args, { cwd: projectRoot });
    const took = `${((performance.now() - start) / 1000).toFixed(1)} s`;
    if (code !== 0) throw new CommandError(`${stage.name} exited ${code} after ${took}`);
    times.push(`${stage.name} ${took}`);
    if (stage.afterwards) console.log(`docs:build: ${stage.afterwards()}`);
  }
  console.log(`docs:build: built docs/.vitepress/dist (${times.join(', ')})`);
  return 0;
});
