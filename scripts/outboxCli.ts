/**
 * The outbox runbook as a command:
 *   npm run outbox -- redrive [--queue <url>] [--endpoint <url>] [--dry-run] [--max <n>]
 */

import { existsSync, readFileSync } from 'node:fs';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { Command, InvalidArgumentError } from 'commander';
import { AwsOutboxSender, type RedriveOutcome, redriveOutbox } from 'sqs-inbox/relay';
import { LOCAL_RUN_FILE } from '../tools/local/runFile.js';

// The machines run Node 20 while Lambda runs 22: the SDK's reminder about that is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

interface RedriveOptions {
  readonly queue?: string;
  readonly endpoint?: string;
  readonly dryRun: boolean;
  readonly max?: number;
}

/** The relay queue and endpoint of the service `npm start -- --keep-running` serves, if any. */
function localRun(): { endpoint: string; deadLetterQueueUrl?: string } | undefined {
  if (!existsSync(LOCAL_RUN_FILE)) return undefined;
  const run = JSON.parse(readFileSync(LOCAL_RUN_FILE, 'utf8')) as {
    endpoint: string;
    outbox?: { deadLetterQueueUrl?: string };
  };
  return { endpoint: run.endpoint, deadLetterQueueUrl: run.outbox?.deadLetterQueueUrl };
}

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new InvalidArgumentError(`a whole number above 0 (given ${value})`);
  return parsed;
}

/** AWS itself (credentials and region from the environment), or an emulator at `endpoint`. */
function clientsFor(endpoint: string | undefined) {
  const config = endpoint
    ? {
        endpoint,
        region: process.env.AWS_REGION ?? 'us-east-1',
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      }
    : {};
  const sqsClient = new SQSClient(config);
  return {
    sqsClient,
    sender: new AwsOutboxSender({
      sqsClient,
      snsClient: new SNSClient(config),
      eventBridgeClient: new EventBridgeClient(config),
    }),
    streamsClient: new DynamoDBStreamsClient(config),
  };
}

function describeOutcome(outcome: RedriveOutcome): string {
  const ids = outcome.outboxIds.length ? ` outbox ids ${outcome.outboxIds.join(', ')}` : '';
  const reason = outcome.reason ? `: ${outcome.reason}` : '';
  return `${outcome.status.padEnd(12)} ${outcome.kind.padEnd(7)} ${outcome.messageId}${ids}${reason}`;
}

async function redrive(options: RedriveOptions): Promise<number> {
  // The local service's queue and endpoint go together: a queue given is not sent to it.
  const local = options.queue === undefined ? localRun() : undefined;
  const endpoint = options.endpoint ?? (process.env.AWS_ENDPOINT_URL || local?.endpoint);
  const queue = options.queue ?? local?.deadLetterQueueUrl;
  if (queue === undefined)
    throw new Error(
      "no queue: give the relay's dead-letter queue with --queue <url> (the stack output LedgerOutboxDeadLetterQueueUrl), or start a local service with `npm start -- --keep-running`",
    );
  const { sqsClient, sender, streamsClient } = clientsFor(endpoint);
  const outcomes = await redriveOutbox({
    deadLetter: { queueUrl: queue, client: sqsClient },
    dryRun: options.dryRun,
    ...(options.max === undefined ? {} : { maxMessages: options.max }),
    sender,
    streamsClient,
  });
  for (const outcome of outcomes) console.log(describeOutcome(outcome));
  const count = (status: RedriveOutcome['status']) =>
    outcomes.filter((outcome) => outcome.status === status).length;
  console.log(
    outcomes.length === 0
      ? `the relay's dead-letter queue ${queue} is empty`
      : `${count('redriven')} redriven, ${count('wouldRedrive')} would be (dry run), ${count('left')} left in ${queue}`,
  );
  return count('left') > 0 ? 1 : 0;
}

const program = new Command('sqs-inbox-outbox').description(
  "The outbox relay's runbook: what its dead-letter queue holds, sent again.",
);

program
  .command('redrive')
  .description(
    "send each refused message in the relay's dead-letter queue again with its outbox id, and read each batch Lambda gave up on back from the stream (within 24 hours) and relay it; what is redriven is deleted, the rest stays with its reason (exit 1)",
  )
  .option('--queue <url>', "the relay's dead-letter queue (default: the local service's)")
  .option(
    '--endpoint <url>',
    'an emulator to talk to (default: AWS_ENDPOINT_URL, else the local service when no --queue is given, else AWS)',
  )
  .option('--dry-run', 'say what would be redriven; send and delete nothing', false)
  .option('--max <n>', 'dead letters to handle at most', positiveInteger)
  .action(async (options: RedriveOptions) => {
    process.exitCode = await redrive(options);
  });

try {
  await program.parseAsync();
} catch (error) {
  console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
