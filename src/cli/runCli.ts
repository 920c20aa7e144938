import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type OperatorClients, operatorClients } from '../aws/operatorClients.js';
import { describeFailure, ExitCode, UsageError } from './CliError.js';
import type { CliIo } from './CliIo.js';
import cliDirectory from './cliDirectory.cjs';
import type { CommonValues } from './cliOptions.js';
import { DLQ_HELP, dlqCommand } from './dlqCommand.js';
import { MESSAGE_HELP, messageCommand } from './messageCommand.js';
import { OUTBOX_HELP, outboxCommand } from './outboxCommand.js';
import { connectionOf } from './resolveTarget.js';

/** `sqs-inbox --help`. */
export const HELP = `usage: sqs-inbox <command> [options]
  message       what happened to one message (by key, message id or DLQ message)
  dlq report    what is in a consumer's DLQ, grouped by reason
  dlq redrive   put back what can safely go back (a dry run unless --apply)
  outbox report|redrive   the outbox relay's dead-letter queue (a dry run unless --apply)
  --version, --help

Consumer flags (every command):
  --function <name>        the consumer's Lambda function: its INBOX_* environment and the queue
                           it reads (needs @aws-sdk/client-lambda)
  --table <name> --dlq <url> --queue <url|arn> --ttl-seconds <n> --sources <list>
  --key-from attribute:<name>|field:<path> --key-is-message-id
                           the same, given by hand (they override what --function found)
  --local                  the repository's own npm start run (.cache/local-run.json)
Connection: the SDK's chain (AWS_PROFILE, AWS_REGION, AWS_ENDPOINT_URL…), or --profile,
  --region, --endpoint-url.
Output: text; --json one document; --jsonl one line per message, then the summary. Progress and
  warnings go to stderr. No command prints a body, a step's result or a plain key (--show-key).
Exit: 0 done, 1 needs attention, 2 usage or configuration, 3 AWS refused.

${MESSAGE_HELP}

${DLQ_HELP}

${OUTBOX_HELP}`;

/**
 * The `sqs-inbox` command: runs one subcommand and answers its exit code. Failures become one
 * line on stderr (no stack trace) and the exit code of their kind.
 *
 * @example
 * ```ts
 * process.exitCode = await runCli(process.argv.slice(2), io);
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const built: OperatorClients[] = [];
  const clients = (values: CommonValues) => {
    const made = operatorClients(connectionOf(values, io));
    built.push(made);
    return made;
  };
  try {
    const [command, ...rest] = argv;
    if (command === '--version' || command === '-v') {
      io.stdout(`${packageVersion()}\n`);
      return ExitCode.Done;
    }
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      io.stdout(`${HELP}\n`);
      return command === undefined ? ExitCode.Usage : ExitCode.Done;
    }
    if (command === 'message') return await messageCommand(rest, io, clients);
    if (command === 'dlq') return await dlqCommand(rest, io, clients);
    if (command === 'outbox') return await outboxCommand(rest, io, clients);
    throw new UsageError(
      `unknown command ${command}; use message, dlq or outbox (see: sqs-inbox --help)`,
    );
  } catch (error) {
    const { code, line } = describeFailure(error);
    io.stderr(`sqs-inbox: ${line}\n`);
    return code;
  } finally {
    for (const made of built) made.destroy();
  }
}

/** The version of the package this command came with. */
function packageVersion(): string {
  for (let directory = cliDirectory; ; directory = dirname(directory)) {
    const path = join(directory, 'package.json');
    if (existsSync(path)) {
      const manifest = JSON.parse(readFileSync(path, 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'sqs-inbox' && manifest.version) return manifest.version;
    }
    if (dirname(directory) === directory) return 'unknown';
  }
}
