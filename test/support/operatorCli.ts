import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/**
 * Runs `sqs-inbox <args>` from the source (`src/cli/bin.ts`) in a process of its own, with only
 * `env`'s AWS variables; killed with its group when the test ends.
 */
export function sqsInbox(args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')),
  );
  return new Promise((resolve, reject) => {
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
    const kill = () => {
      if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
    };
    onTestFinished(kill);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
