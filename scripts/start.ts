/**
 * `npm start`: the reference service on the local emulator with demo traffic, then its
 * invariants (tools/local/runReferenceService.ts does the work).
 */
import { Command } from 'commander';
import { numberIn } from '../tools/cli/optionParsers.js';
import { runCommand } from '../tools/cli/runCommand.js';
import { runReferenceService } from '../tools/local/runReferenceService.js';
import { withTrafficOptions } from '../tools/verify/trafficOptions.js';

const options = withTrafficOptions(
  new Command('npm start --').description(
    'Run the reference service (ledger + inventory) on the local emulator with demo traffic, then check its invariants.',
  ),
  2,
)
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
