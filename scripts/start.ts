/**
 * `npm start`: the reference service on the local emulator with demo traffic, then its
 * invariants (tools/local/runReferenceService.ts does the work).
 */
import { Command, InvalidArgumentError } from 'commander';
import { runCommand } from '../tools/cli/runCommand.js';
import { runReferenceService } from '../tools/local/runReferenceService.js';

const integer = (name: string, min: number) => (value: string) => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min)
    throw new InvalidArgumentError(`${name} must be an integer ≥ ${min} (given ${value}).`);
  return parsed;
};
const rate = (value: string) => {
  const parsed = Number(value);
  if (!(parsed >= 0 && parsed < 1))
    throw new InvalidArgumentError(`the duplicate rate must be in [0, 1) (given ${value}).`);
  return parsed;
};

const options = new Command('npm start --')
  .description(
    'Run the reference service (ledger + inventory) on the local emulator with demo traffic, then check its invariants.',
  )
  .option('--messages <n>', 'demo messages to send', integer('--messages', 2), 200)
  .option('--duplicates <rate>', 'share of events sent again as new SQS messages', rate, 0.2)
  .option('--seed <n>', 'seed of the demo traffic', integer('--seed', 0), Date.now() % 1_000_000)
  .option(
    '--timeout <seconds>',
    'longest wait for the queues to drain',
    integer('--timeout', 10),
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
