import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InboxEnvironment } from 'sqs-inbox/constants';
import { projectRoot } from '../emulator/paths.js';
import type { LocalMapping } from '../local/provisionFromTemplate.js';

/** One message's line of `sqs-inbox dlq redrive --jsonl`: the fields the chaos run reads. */
export interface RedriveLine {
  readonly dlqMessageId: string;
  readonly decision: string;
  readonly action: string;
  readonly newMessageId?: string;
}

/** How one run of the command ended: its exit code, its message lines, its stderr. */
export interface CommandRun {
  readonly code: number | null;
  readonly lines: readonly RedriveLine[];
  readonly stderr: string;
}

/**
 * The operator's `sqs-inbox dlq redrive <consumer> --apply`, run as a user runs it: the
 * package's command in a process of its own (from source through tsx, as `npm run redrive`
 * does), given the consumer by flags and the emulators by the standard AWS variables only —
 * no shared config, no other AWS variable of this process. The key is the consumer's declared
 * one (`INBOX_KEY`), else `eventId`, which the chaos counter computes in its handler.
 *
 * @example
 * ```ts
 * const command = new OperatorCommand({ dynamodb, sqs });
 * const { code, lines } = await command.redrive(mappings.ledger);
 * ```
 */
export class OperatorCommand {
  readonly #env: NodeJS.ProcessEnv;
  readonly #home = mkdtempSync(join(tmpdir(), 'chaos-operator-home-'));
  readonly #running = new Set<ChildProcess>();

  constructor(endpoints: { readonly dynamodb: string; readonly sqs: string }) {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')),
    );
    this.#env = {
      ...clean,
      HOME: this.#home,
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL_SQS: endpoints.sqs,
      AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    };
  }

  /** `sqs-inbox dlq redrive <consumer> --apply --jsonl` on the consumer's DLQ. */
  redrive(mapping: LocalMapping): Promise<CommandRun> {
    return this.#run(['dlq', 'redrive', ...consumerFlags(mapping), '--apply', '--jsonl']);
  }

  /** Stops a run in progress as an operator's Ctrl-C does, and removes the empty home. */
  stop(): void {
    for (const child of this.#running) child.kill('SIGTERM');
    rmSync(this.#home, { recursive: true, force: true });
  }

  #run(args: readonly string[]): Promise<CommandRun> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', ...args], {
        cwd: projectRoot,
        env: this.#env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      this.#running.add(child);
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
        this.#running.delete(child);
        resolve({ code, lines: messageLines(stdout), stderr });
      });
    });
  }
}

/** The consumer as the command's flags: what its function's environment would have told it. */
function consumerFlags(mapping: LocalMapping): string[] {
  const env = mapping.environment;
  const flag = (name: string, variable: string) => {
    const value = env[variable];
    return value ? [name, value] : [];
  };
  return [
    env[InboxEnvironment.Consumer] ?? mapping.consumer,
    ...flag('--table', InboxEnvironment.TableName),
    '--dlq',
    mapping.deadLetterQueueUrl,
    '--queue',
    mapping.queueArn,
    ...flag('--ttl-seconds', InboxEnvironment.TtlSeconds),
    ...flag('--sources', InboxEnvironment.Sources),
    // The reference consumers declare their key (INBOX_KEY); the chaos counter keys by eventId
    // in its handler, so the operator names it, as the README asks of a key computed in code.
    '--key-from',
    env[InboxEnvironment.Key] ?? 'field:eventId',
    // The emulator answers at once: no need to spare a production queue.
    '--rate',
    '200',
  ];
}

/** The per-message lines of `--jsonl` output (the last line, the summary, has none). */
function messageLines(stdout: string): RedriveLine[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Partial<RedriveLine>)
    .filter((line): line is RedriveLine => typeof line.dlqMessageId === 'string');
}
