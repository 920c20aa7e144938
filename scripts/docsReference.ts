/**
 * `node --import tsx scripts/docsReference.ts --typedoc-json <file> --out <dir>`: writes the
 * generated reference pages (configuration, environment, metrics, errors) into `<dir>` from
 * TypeDoc's JSON model of the package; tools/docs/reference does the work. It fails, naming
 * each member, when an option has no summary or, optional, no `@defaultValue`, when a metric's
 * summary does not open with its unit, or when an error or a field has no summary.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { CommandError, runCommand } from '../tools/cli/runCommand.js';
import { renderReferencePages } from '../tools/docs/reference/renderReferencePages.js';

const program = new Command('docsReference')
  .showSuggestionAfterError(false)
  .description("Write docs/reference's generated pages from TypeDoc's JSON model of the package.")
  .requiredOption('--typedoc-json <file>', 'the model, as `typedoc --json <file>` writes it')
  .requiredOption('--out <dir>', 'where the pages go (docs/reference)')
  .parse();

const { typedocJson, out } = program.opts<{ typedocJson: string; out: string }>();

await runCommand('docsReference', async () => {
  let pages: Record<string, string>;
  try {
    pages = renderReferencePages(JSON.parse(readFileSync(typedocJson, 'utf8')));
  } catch (error) {
    throw new CommandError(error instanceof Error ? error.message : String(error));
  }
  mkdirSync(out, { recursive: true });
  for (const [file, text] of Object.entries(pages)) {
    writeFileSync(join(out, file), text);
    console.log(`${join(out, file)}: ${text.split('\n').length - 1} lines`);
  }
  return 0;
});
