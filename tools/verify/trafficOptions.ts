import type { Command } from 'commander';
import { numberIn, shareBelowOne } from '../cli/optionParsers.js';

/** The demo traffic's options, as the commands that send it parse them. */
export interface TrafficOptionValues {
  readonly messages: number;
  readonly duplicates: number;
  readonly seed: number;
}

/**
 * Adds the demo traffic's options to a command (`npm start`, `npm run verify:aws`):
 * `--messages` (at least `leastMessages`), `--duplicates` and `--seed`.
 *
 * @example
 * ```ts
 * const options = withTrafficOptions(new Command('npm start --'), 2).parse().opts();
 * ```
 */
export function withTrafficOptions(command: Command, leastMessages: number): Command {
  return command
    .option('--messages <n>', 'demo messages to send', numberIn('--messages', leastMessages), 200)
    .option(
      '--duplicates <rate>',
      'share of events sent again as new SQS messages',
      shareBelowOne('the duplicate rate'),
      0.2,
    )
    .option(
      '--seed <n>',
      'seed of the demo traffic',
      numberIn('--seed', 0),
      Date.now() % 1_000_000,
    );
}
