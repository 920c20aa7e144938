/**
 * `npm run with-node -- <major> <command> [args...]`: runs a command on a pinned Node.js line
 * (installed from the npm registry into `.cache/node/`, integrity-checked; tools/node does the
 * work), for the runtime matrix: `npm run with-node -- 24 npx vitest run --project unit`.
 */
import { Command } from 'commander';
import { runCommand } from '../tools/cli/runCommand.js';
import { PINNED_NODES } from '../tools/node/pinnedNodes.js';
import { runOnNode } from '../tools/node/runOnNode.js';

const program = new Command('npm run with-node --')
  .showSuggestionAfterError(false)
  .description(
    'Run a command with a pinned Node.js first on PATH, installed on first use into .cache/node/ from the npm registry and checked against its pinned integrity.',
  )
  .argument('<major>', `the Node.js line: ${Object.keys(PINNED_NODES).join(' or ')}`)
  .argument('<command>', 'the command to run (node, npx, npm, …)')
  .argument('[args...]', "the command's arguments, options included")
  // Everything after <major> belongs to the command: `--project unit` is vitest's, not ours.
  .passThroughOptions()
  .parse();

const [major, command, args] = program.processedArgs as [string, string, string[]];

await runCommand('npm run with-node', () => runOnNode(major, command, args));
