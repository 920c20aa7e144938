import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { projectRoot } from '../emulator/paths.js';

/** How a run of the `sqs-inbox` command ended: its exit code, and its two streams apart. */
export interface SqsInboxRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A started run: its process (to signal, or to watch its stdout as it comes), and its end. */
export interface SpawnedSqsInbox {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  /** Resolves once the process closed, whatever its exit code; rejects if it never started. */
  readonly ended: Promise<SqsInboxRun>;
}

/**
 * Starts `sqs-inbox <args>` as a user runs it: the package's command from source
 * (`src/cli/bin.ts` through tsx, as `npm run redrive` does) in a process of its own, given the
 * AWS variables of `awsEnvironment` only — none of this process's — and an empty home of its
 * own, so no shared config or credentials file is read and no instance metadata asked. The
 * home is removed when the process closes. `detached` makes it lead its own process group.
 *
 * @example
 * ```ts
 * const { child, ended } = spawnSqsInbox(['dlq', 'report', 'ledger', '--table', table], {
 *   AWS_REGION: 'us-east-1', AWS_ENDPOINT_URL_SQS: sqs, AWS_ENDPOINT_URL_DYNAMODB: dynamodb,
 * });
 * const { code, stdout } = await ended;
 * ```
 */
export function spawnSqsInbox(
  args: readonly string[],
  awsEnvironment: NodeJS.ProcessEnv,
  options: { readonly detached?: boolean } = {},
): SpawnedSqsInbox {
  const withoutAws = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')),
  );
  const home = mkdtempSync(join(tmpdir(), 'sqs-inbox-cli-home-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', ...args], {
    cwd: projectRoot,
    env: { ...withoutAws, HOME: home, AWS_EC2_METADATA_DISABLED: 'true', ...awsEnvironment },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  const ended = new Promise<SqsInboxRun>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      rmSync(home, { recursive: true, force: true });
      resolve({ code, stdout, stderr });
    });
  });
  return { child, ended };
}
