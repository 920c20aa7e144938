import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { onTestFinished } from 'vitest';
import { projectRoot } from '../../tools/emulator/paths.js';
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
export interface RunningCli {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  readonly ended: Promise<CliResult>;
}

/**
 * Starts `sqs-inbox <args>` from the source (`src/cli/bin.ts`) in a process of its own, with
 * only `env`'s AWS variables; killed with its group when the test ends. A test that signals
 * it, or closes its output, while it runs uses `child`.
 */
export function startSqsInbox(args: readonly string[], env: NodeJS.ProcessEnv): RunningCli {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', ...args], {
    cwd: projectRoot,
    env: {
      ...clean,
      HOME: mkdtempSync(join(tmpdir(), 'sqs-inbox-cli-home-')),
      AWS_EC2_METADATA_DISABLED: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  onTestFinished(() => {
    if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
  });
  const stdout = collected(child.stdout);
  const stderr = collected(child.stderr);
  const ended = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: stdout(), stderr: stderr() }));
  });
  return { child, ended };
}

/** What `stream` has given so far, as text. */
function collected(stream: Readable): () => string {
  let text = '';
  stream.on('data', (chunk) => {
    text += chunk;
  });
  return () => text;
}

/** Runs `sqs-inbox <args>` to its end ({@link startSqsInbox}). */
export function sqsInbox(args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return startSqsInbox(args, env).ended;
}
