/**
 * `npm run chaos`: crashes, races and AWS faults against the reference consumers, then the
 * invariants (tools/chaos/runChaos.ts does the work).
 */
import { Command, Option } from 'commander';
import { type ChaosOptions, runChaos } from '../tools/chaos/runChaos.js';
import { numberIn } from '../tools/cli/optionParsers.js';
import { runCommand } from '../tools/cli/runCommand.js';

const options = new Command('npm run chaos --')
  .description(
    "Kill the reference consumers and the ledger's outbox relay at thirteen crash points (four inside the notifier's steps, two in the relay) while AWS faults are injected, then check that every effect happened exactly once and nothing was lost on either hop.",
  )
  .option('--crashes <n>', 'crashes to inject before draining', numberIn('--crashes', 5), 1000)
  .option(
    '--duplicates <rate>',
    'share of events sent twice',
    numberIn('--duplicates', 0, 0.9, false),
    0.3,
  )
  .option(
    '--fault-rate <rate>',
    'share of AWS requests that fail',
    numberIn('--fault-rate', 0, 0.5, false),
    0.03,
  )
  .option('--workers <n>', 'consumer processes per consumer', numberIn('--workers', 2, 8), 3)
  .option(
    '--visibility <seconds>',
    'visibility timeout of each receive',
    numberIn('--visibility', 2, 60),
    3,
  )
  .option(
    '--seed <n>',
    'seed of traffic, crash points and faults',
    numberIn('--seed', 0),
    Date.now() % 1_000_000,
  )
  .option('--timeout <seconds>', 'longest run before giving up', numberIn('--timeout', 30), 1800)
  .option('--coalesce', 'the consumers commit several messages per transaction', false)
  .addOption(
    new Option(
      '--dynamodb <backend>',
      'DynamoDB backend: the emulator, or DynamoDB Local (the official engine)',
    )
      .choices(['emulator', 'dynamodb-local'])
      .default('emulator'),
  )
  .parse()
  .opts<ChaosOptions>();

// The machines run Node 20 while Lambda runs 22: the SDK's reminder about that is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
await runCommand('npm run chaos', () => runChaos(options));
