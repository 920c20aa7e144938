import { errorTypeName } from '../errors/errorText.js';
import { InboxError } from '../errors.js';

/**
 * How the `sqs-inbox` command ends: done; something needs a person (a message not found, a
 * DLQ not empty, messages kept); the command line or configuration is wrong; AWS refused (no
 * credentials, access denied, no such resource, no answer); stopped by SIGINT or SIGTERM
 * (130, as a shell reports a command its Ctrl-C ended).
 *
 * @example
 * ```ts
 * process.exitCode = ExitCode.NeedsAttention;
 * ```
 */
export const ExitCode = {
  Done: 0,
  NeedsAttention: 1,
  Usage: 2,
  AwsRefused: 3,
  Interrupted: 130,
} as const;
/** One of the values of {@link ExitCode}. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * A command line or configuration the command cannot run with; its message says what to
 * change.
 *
 * @example
 * ```ts
 * throw new UsageError('give one of --key, --message-id or --from-dlq');
 * ```
 */
export class UsageError extends InboxError {
  static override readonly errorName: string = 'UsageError';
}

/** Error names of AWS answers that mean "not allowed" or "no such thing", and of no answer. */
const REFUSALS = [
  /^CredentialsProviderError$/,
  /AccessDenied/,
  /^UnrecognizedClient/,
  /^InvalidClientTokenId$/,
  /^ExpiredToken/,
  /^InvalidSignature/,
  /^SignatureDoesNotMatch$/,
  /^ResourceNotFoundException$/,
  /NonExistentQueue$/,
  /^QueueDoesNotExist$/,
  /^TimeoutError$/,
];
const NO_ANSWER = new Set(['ECONNREFUSED', 'ENOTFOUND', 'ECONNRESET', 'ETIMEDOUT', 'EAI_AGAIN']);

/**
 * The exit code of an error that ended a command, and its one line for stderr (no stack).
 *
 * @example
 * ```ts
 * const { code, line } = describeFailure(error);
 * ```
 */
export function describeFailure(error: unknown): { code: ExitCode; line: string } {
  const { name, message } = errorParts(error);
  if (error instanceof UsageError) return { code: ExitCode.Usage, line: message };
  if (['InvalidConfigurationError', 'EnvironmentError', 'MissingPeerError'].includes(name)) {
    return { code: ExitCode.Usage, line: `${name}: ${message}` };
  }
  const code = (error as { code?: string } | undefined)?.code;
  if (REFUSALS.some((pattern) => pattern.test(name)) || (code && NO_ANSWER.has(code))) {
    return { code: ExitCode.AwsRefused, line: `AWS refused: ${name}: ${message}` };
  }
  // Any other answer of an AWS service (it carries `$metadata`) is a refusal too.
  if (error !== null && typeof error === 'object' && '$metadata' in error) {
    return { code: ExitCode.AwsRefused, line: `AWS refused: ${name}: ${message}` };
  }
  return { code: ExitCode.NeedsAttention, line: `failed: ${name}: ${message}` };
}

/**
 * A thrown value's name (its class, or its type) and the first line of its message, for a
 * one-line report without a stack.
 *
 * @example
 * ```ts
 * const { name, message } = errorParts(error); // { name: 'TimeoutError', message: 'timed out' }
 * ```
 */
export function errorParts(error: unknown): { readonly name: string; readonly message: string } {
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return { name: errorTypeName(error), message: message ?? '' };
}
