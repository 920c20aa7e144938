import type { ChildProcess } from 'node:child_process';
import { InboxEnvironment } from 'sqs-inbox/constants';
import { consumerFlags } from '../../src/cli/consumerFlags.js';
import { spawnSqsInbox } from '../cli/spawnSqsInbox.js';
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
 * The operator's `sqs-inbox dlq redrive <consumer> --apply`, run as a user runs it
 * ({@link spawnSqsInbox}), given the consumer by flags and the emulators by the standard AWS
 * variables only. The key is the consumer's declared
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
  readonly #running = new Set<ChildProcess>();

  constructor(endpoints: { readonly dynamodb: string; readonly sqs: string }) {
    this.#env = {
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL_SQS: endpoints.sqs,
      AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    };
  }

  /** `sqs-inbox dlq redrive <consumer> --apply --jsonl` on the consumer's DLQ. */
  redrive(mapping: LocalMapping): Promise<CommandRun> {
    return this.#run(['dlq', 'redrive', ...redriveFlags(mapping), '--apply', '--jsonl']);
  }

  /** Stops a run in progress as an operator's Ctrl-C does. */
  stop(): void {
    for (const child of this.#running) child.kill('SIGTERM');
  }

  async #run(args: readonly string[]): Promise<CommandRun> {
    const { child, ended } = spawnSqsInbox(args, this.#env);
    this.#running.add(child);
    try {
      const { code, stdout, stderr } = await ended;
      return { code, lines: messageLines(stdout), stderr };
    } finally {
      this.#running.delete(child);
    }
  }
}

/** The consumer as the command's flags: what its function's environment would have told it. */
function redriveFlags(mapping: LocalMapping): string[] {
  const env = mapping.environment;
  return [
    env[InboxEnvironment.Consumer] ?? mapping.consumer,
    ...consumerFlags({
      ...env,
      [InboxEnvironment.DeadLetterQueueUrl]: mapping.deadLetterQueueUrl,
      // The reference consumers declare their key (INBOX_KEY); the chaos counter keys by eventId
      // in its handler, so the operator names it, as the README asks of a key computed in code.
      [InboxEnvironment.Key]: env[InboxEnvironment.Key] ?? 'field:eventId',
    }),
    '--queue',
    mapping.queueArn,
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
