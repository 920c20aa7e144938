/**
 * `npm run bench:retry`: issue 34's transient-failure scenario on the emulator, with the retry
 * policy off and on. N messages (40) are sent at once to a queue whose visibility timeout V
 * (12 s) stands for 6 × a 2 s function timeout; their handler calls a downstream that is down
 * for D seconds (8) from the send, then up. A local event source mapping (five pollers,
 * batches of 10, `startQueueMapping`) runs the processor and deletes what succeeded; a failed
 * message comes back when its visibility ends: the queue's V without `retry` (policy off), the
 * processor's jittered delay with `retry: { backoff: { firstDelaySeconds: 1, maxDelaySeconds:
 * 8 } }` (policy on, `Math.random`). Per run: downstream calls, SQS and DynamoDB requests of
 * the mapping and the processor, each message's time from send to commit (its inbox entry's
 * `processedAt`). Every run is checked — each message committed once by itself (inbox entry,
 * balance, ledger entry), the queue empty, the DLQ empty — and a wrong one stops the command
 * before any figure. Repetitions interleaved, each starting with the other policy; medians and
 * on ÷ off ratios printed. A script that prints figures; nothing here asserts on time.
 *
 *   npm run bench:retry
 *   npm run bench:retry -- --messages 100 --down-seconds 20 --visibility-seconds 30
 */
import { Command } from 'commander';
import { numberIn } from '../tools/cli/optionParsers.js';
import { CommandError, runCommand } from '../tools/cli/runCommand.js';
import { startEmulator } from '../tools/emulator/emulator.js';
import { describeRun, printRetryTable } from './printRetryReport.js';
import { RETRY_VARIANTS, type RetryRunResult, runRetryScenario } from './retryRun.js';

// The machines run Node 20 while Lambda runs 22: the SDK's reminder about that is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const options = new Command('npm run bench:retry --')
  .description(
    'Downstream calls, SQS and DynamoDB requests and time to commit of messages whose downstream is down for a while, with the retry policy off and on.',
  )
  .option('--messages <n>', 'messages sent at once', numberIn('--messages', 1, 1000), 40)
  .option(
    '--down-seconds <s>',
    'how long the downstream is down from the send',
    numberIn('--down-seconds', 0, 300),
    8,
  )
  .option(
    '--visibility-seconds <s>',
    "the queue's visibility timeout (6 × the function timeout it stands for)",
    numberIn('--visibility-seconds', 1, 300),
    12,
  )
  .option(
    '--repetitions <n>',
    'runs of each policy, interleaved',
    numberIn('--repetitions', 1, 20),
    3,
  )
  .parse()
  .opts<{
    messages: number;
    downSeconds: number;
    visibilitySeconds: number;
    repetitions: number;
  }>();

async function main(): Promise<number> {
  const emulator = await startEmulator(['sqs', 'dynamodb']);
  const { messages, downSeconds, visibilitySeconds, repetitions } = options;
  console.log(
    `bench:retry on ${emulator.name}: ${messages} messages sent at once, downstream down ${downSeconds} s from the send, visibility timeout ${visibilitySeconds} s, maxReceiveCount ${Math.ceil(downSeconds) + 2}, batches of 10 on 5 pollers, ${repetitions} interleaved repetitions`,
  );
  for (const variant of RETRY_VARIANTS) console.log(`  policy ${variant.name}: ${variant.label}`);
  const results: RetryRunResult[] = [];
  for (let repetition = 0; repetition < repetitions; repetition++) {
    // Each repetition starts with the other policy, so that neither always runs first.
    const order = repetition % 2 === 0 ? RETRY_VARIANTS : [...RETRY_VARIANTS].reverse();
    for (const variant of order) {
      const result = await runRetryScenario(variant, options, emulator.endpoint);
      if (result.problems.length > 0) {
        throw new CommandError(
          `policy ${variant.name}, run ${repetition + 1}, went wrong: ${result.problems.join('; ')}`,
        );
      }
      results.push(result);
      console.error(`  run ${repetition + 1}/${repetitions} ${describeRun(result)}`);
    }
  }
  printRetryTable(results);
  console.log(
    `every run checked: each message committed once, by itself (inbox entry, balance, ledger entry); queue and DLQ empty. SQS requests: the mapping's and the processor's, receives that brought messages, deletes and visibility changes; the mapping's empty long polls (1 s each, Lambda's are 20 s) are left out. Time to commit: from the SendMessageBatch's answer to the inbox entry's processedAt.`,
  );
  return 0;
}

await runCommand('npm run bench:retry', main);
