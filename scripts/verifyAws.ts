/**
 * `npm run verify:aws`: deploys the reference stack (cdk deploy), drives traffic with
 * duplicates, upstream retries, poison messages and a redrive through `sqs-inbox`, checks
 * `npm start`'s invariants against the deployed services, prints the report and destroys the
 * stack, also on Ctrl-C (tools/verify/runVerify.ts does the work). `--emulator` runs the same on
 * MiniStack (or AWS_ENDPOINT_URL).
 */
import { Command } from 'commander';
import { numberIn } from '../tools/cli/optionParsers.js';
import { CommandError, runCommand } from '../tools/cli/runCommand.js';
import { runVerify } from '../tools/verify/runVerify.js';
import { withTrafficOptions } from '../tools/verify/trafficOptions.js';

const options = withTrafficOptions(
  new Command('npm run verify:aws --').description(
    'Deploy the reference stack to your AWS account (or the emulator), drive traffic, check the invariants, destroy it.',
  ),
  20,
)
  .option('--emulator', 'the emulator (MiniStack, or AWS_ENDPOINT_URL) instead of AWS', false)
  .option('--profile <name>', 'the AWS profile (default: the SDK default chain)')
  .option('--region <name>', 'the AWS region (default: AWS_REGION)')
  .option('--bootstrap', 'run cdk bootstrap first (once per account and region)', false)
  .option('--sender <address>', "the notifier's SES sender: an address whose mail you can open")
  .option(
    '--sender-wait <minutes>',
    "how long to wait for the sender's SES verification (AWS)",
    numberIn('--sender-wait', 0),
    10,
  )
  .option(
    '--timeout <seconds>',
    'longest wait for the stack to settle',
    numberIn('--timeout', 30),
    600,
  )
  .parse()
  .opts<{
    emulator: boolean;
    profile?: string;
    region?: string;
    bootstrap: boolean;
    sender?: string;
    senderWait: number;
    messages: number;
    duplicates: number;
    seed: number;
    timeout: number;
  }>();

// The machines run Node 20 while Lambda runs 22: the SDK's reminder about that is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
await runCommand('npm run verify:aws', async () => {
  const region = options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (!options.emulator && !region)
    throw new CommandError('give --region <name> (or set AWS_REGION), or --emulator.');
  return runVerify({
    ...(options.emulator
      ? {}
      : {
          aws: {
            region: region ?? '',
            bootstrap: options.bootstrap,
            ...(options.profile ? { profile: options.profile } : {}),
          },
        }),
    messages: options.messages,
    duplicates: options.duplicates,
    seed: options.seed,
    timeoutSeconds: options.timeout,
    senderWaitMinutes: options.senderWait,
    ...(options.sender ? { sender: options.sender } : {}),
  });
});
