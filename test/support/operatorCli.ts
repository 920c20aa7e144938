import { onTestFinished } from 'vitest';
import { type SpawnedSqsInbox, spawnSqsInbox } from '../../tools/cli/spawnSqsInbox.js';
import type { TestAws } from '../harness/aws.js';

/** How the `sqs-inbox` command ended: its exit code, and its two streams apart. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The standard AWS variables for the emulators, as a user sets them: credentials, region and a
 * per-service endpoint. No other AWS variable of this process reaches the command, and its
 * home is empty, so no shared config or credentials file is read.
 */
export function standardAwsEnvironment(aws: TestAws): NodeJS.ProcessEnv {
  return {
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_REGION: 'us-east-1',
    AWS_ENDPOINT_URL_SQS: aws.endpoints.sqs,
    AWS_ENDPOINT_URL_DYNAMODB: aws.endpoints.dynamodb,
  };
}

/** A `sqs-inbox` command still running: its process, and how it ended once it has. */
export type RunningCli = SpawnedSqsInbox;

/**
 * Starts `sqs-inbox <args>` from the source (`src/cli/bin.ts`) in a process of its own, with
 * only `env`'s AWS variables; killed with its group when the test ends. A test that signals
 * it, or closes its output, while it runs uses `child`.
 */
export function startSqsInbox(args: readonly string[], env: NodeJS.ProcessEnv): RunningCli {
  const running = spawnSqsInbox(args, env, { detached: true });
  const { child } = running;
  onTestFinished(() => {
    if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
  });
  return running;
}

/** Runs `sqs-inbox <args>` to its end ({@link startSqsInbox}). */
export function sqsInbox(args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return startSqsInbox(args, env).ended;
}
