// `npm run docs:snippets`: the fast part of `npm run docs:check`, with no site built — every
// ```ts block of the docs pages, README.md, CONTRIBUTING.md and CHANGELOG.md compiles against
// the package's entries, `ts old-api` blocks appear only where allowed, and every include
// names a file that exists. Exits 1 and lists each problem as `page:line: message`.
import { Command } from 'commander';
import { runCommand } from '../tools/cli/runCommand.js';
import { runSnippetCheck } from '../tools/docs/docsCheckSteps.js';
import { projectRoot } from '../tools/emulator/paths.js';

new Command('npm run docs:snippets')
  .description("compile the docs' ts blocks and check their includes (no build needed)")
  .parse();

await runCommand('npm run docs:snippets', async () => {
  const result = runSnippetCheck(projectRoot);
  return result.ok ? 0 : 1;
});
