import { describe, describeType } from './errorText.js';
import { InboxError } from './InboxError.js';

/**
 * An option given to the store or the processor is missing or out of range, or the processor
 * is registered as a middy middleware. Thrown at creation or in middy's `before`, never while
 * a batch is being committed.
 *
 * @example
 * ```ts
 * new InvalidConfigurationError('concurrency', 0, 'an integer from 1 to 1000');
 * ```
 * @public
 */
export class InvalidConfigurationError extends InboxError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'InvalidConfigurationError';
  /**
   * Where the option is, as a caller writes it (`performance.concurrency`,
   * `deadLetter.queueUrl`, `runtime.now`), or the unknown key given, or `middy use()`.
   */
  readonly option: string;
  /** The value given, as it is (not a copy); the message shows it cut to 120 characters. */
  readonly value: unknown;
  constructor(option: string, value: unknown, expected: string) {
    super(`Invalid sqs-inbox option "${option}": got ${describe(value)}; expected ${expected}.`);
    this.option = option;
    this.value = value;
  }
}

/**
 * A variable of the environment contract (`InboxEnvironment`) is missing or invalid, so the
 * function cannot know its inbox table, consumer, TTL, dead-letter queue or a business table.
 * Thrown by `inboxConfigFromEnvironment()` at cold start, before any message is read, naming
 * every such variable; and by its `table(name)` for a table the environment does not name.
 *
 * @example
 * ```ts
 * try { inboxConfigFromEnvironment(); }
 * catch (error) { if (error instanceof EnvironmentError) console.error(error.variables); throw error; }
 * ```
 * @public
 */
export class EnvironmentError extends InboxError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'EnvironmentError';
  /** The variables that are missing or invalid. */
  readonly variables: readonly string[];
  constructor(variables: readonly string[], problem: string, fix: string) {
    super(
      `Environment variable${variables.length > 1 ? 's' : ''} ${variables.join(', ')} ${problem}. ${fix}`,
    );
    this.variables = variables;
  }
}

/**
 * The invocation is not an SQS batch event (no `Records` array, or a record without a
 * non-empty `messageId` or a string `body`), or, for the outbox relay, not a DynamoDB stream
 * event (a record without a `SequenceNumber`). The whole invocation fails loudly, so that
 * Lambda retries every record rather than acknowledging anything by mistake.
 *
 * @example
 * ```ts
 * declare const options: InboxOptions<typeof PaymentSchema>;
 * // ---cut---
 * import { expect } from 'vitest';
 * await expect(processSqsBatch({}, handler, options)).rejects.toThrow(MalformedEventError);
 * ```
 * @public
 */
export class MalformedEventError extends InboxError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'MalformedEventError';
  /**
   * Where in the event the problem is: `event.Records`, `event.Records[3].messageId`, or for
   * the relay `Records` and `Records[].dynamodb.SequenceNumber`.
   */
  readonly path: string;
  constructor(path: string, value: unknown, expected: string, source = 'an SQS') {
    super(
      `Not ${source} event: ${path} is ${describeType(value)}, expected ${expected}. ` +
        `Invoke this handler only from ${source} event source mapping.`,
    );
    this.path = path;
  }
}
