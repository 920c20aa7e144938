/**
 * `npm start`: the reference service on the local emulator with demo traffic, then its
 * invariants (tools/local/runReferenceService.ts does the work).
 */
import { Command } from 'commander';
import { numberIn, shareBelowOne } from '../tools/cli/optionParsers.js';
import { runCommand } from '../tools/cli/runCommand.js';
import { runReferenceService } from '../tools/local/runReferenceService.js';

const options = new Command('npm start --')
  .description(
    'Run the reference service (ledger + inventory) on the local emulator with demo traffic, then check its invariants.',
  )
  .option('--messages <n>', 'demo messages to send', numberIn('--messages', 2), 200)
  .option(
    '--duplicates <rate>',
    'share of events sent again as new SQS messages',
    shareBelowOne('the duplicate rate'),
    0.2,
  )
  .option('--seed <n>', 'seed of the demo traffic', numberIn('--seed', 0), Date.now() % 1_000_000)
  .option(
    '--timeout <seconds>',
    'longest wait for the queues to drain',
    numberIn('--timeout', 10),
    240,
  )
  .option('--keep-running', 'keep the consumers serving after the report, until Ctrl-C', false)
  .parse()
  .opts<{
    messages: number;
    duplicates: number;
    seed: number;
    timeout: number;
    keepRunning: boolean;
  }>();

// The machines run Node 20 while Lambda runs 22: the SDK's reminder about that is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
await runCommand('npm start', () => runReferenceService(options));
