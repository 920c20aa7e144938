// `npm run docs:check` (after `npm run docs:build`): (a) every ```ts block of the docs compiles
// against the package and every include names a file (`npm run docs:snippets` alone), (b)
// every internal link and #anchor of the built site resolves, (c) every built page loads in
// headless Chromium (the Debian package) with no console error, page error, failed request,
// HTTP status ≥ 400 or request outside the site; screenshots of the home page and a guide page
// go to .cache/docs-check/. Every step runs; exits 1 if any failed.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { CommandError, runCommand } from '../tools/cli/runCommand.js';
import {
  runBrowserCheck,
  runLinkCheck,
  runSnippetCheck,
  SITE_DIST,
} from '../tools/docs/docsCheckSteps.js';
import { projectRoot } from '../tools/emulator/paths.js';

const options = new Command('npm run docs:check')
  .description('check the docs: code blocks, links and anchors, and every page in Chromium')
  .option('--chromium <path>', 'the Chromium executable', '/usr/bin/chromium')
  .parse()
  .opts<{ chromium: string }>();

await runCommand('npm run docs:check', async () => {
  const start = performance.now();
  const dist = join(projectRoot, SITE_DIST);
  if (!existsSync(join(dist, 'index.html'))) {
    throw new CommandError(`no built site in ${SITE_DIST}: run \`npm run docs:build\` first`);
  }
  const results = [
    runSnippetCheck(projectRoot),
    runLinkCheck(dist),
    await runBrowserCheck(projectRoot, options.chromium),
  ];
  const failed = results.filter((result) => !result.ok).map((result) => result.step);
  const took = `${((performance.now() - start) / 1000).toFixed(1)} s`;
  console.log(
    `docs:check: ${failed.length === 0 ? 'passed' : `FAILED (${failed.join(', ')})`} in ${took}`,
  );
  return failed.length === 0 ? 0 : 1;
});
