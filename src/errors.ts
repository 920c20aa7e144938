import type { TransactionLimit, TransientReason } from './constants.js';

/** Where an error records the names of its classes, so another copy of the library knows it. */
const CLASS_NAMES = Symbol.for('sqs-inbox.errorClassNames');

/**
 * Base class of every error this library throws or reports. Catch it to tell inbox errors
 * from your own; use the subclasses (`instanceof`) to tell them apart. `instanceof` also holds
 * across two copies of the library in one program (its ES module and CommonJS builds, say): a
 * `PermanentError` thrown with one copy's class is permanent for the other copy's processor.
 *
 * @example
 * ```ts
 * try { await processSqsBatch(event, handler, options); }
 * catch (error) { if (error instanceof InboxError) logger.error(error.message); throw error; }
 * ```
 */
export class InboxError extends Error {
  /**
   * The stable name of each library error class. Bundlers that minify rename classes, so
   * `name` comes from here for the library's own classes; a user subclass keeps its class name.
   */
  static readonly errorName: string = 'InboxError';

  /** `instanceof` by prototype, or by the class names an error of another copy recorded. */
  static override [Symbol.hasInstance]<T>(
    this: abstract new (
      ...args: never[]
    ) => T,
    value: unknown,
  ): value is T {
    // `this` is the class on the right of `instanceof` (a subclass too), not InboxError.
    // biome-ignore lint/complexity/noThisInStatic: the tested class is `this`, by design.
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    const names = (value as { [CLASS_NAMES]?: unknown } | null | undefined)?.[CLASS_NAMES];
    // biome-ignore lint/complexity/noThisInStatic: the tested class is `this`, by design.
    return Array.isArray(names) && names.includes(classNameOf(this));
  }

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = classNameOf(new.target);
    Object.defineProperty(this, CLASS_NAMES, { value: classNamesOf(new.target) });
  }
}

/** A class's stable name: its `errorName` for the library's classes, else its own name. */
function classNameOf(type: object): string {
  const { errorName, name } = type as { errorName?: string; name: string };
  return Object.hasOwn(type, 'errorName') && errorName ? errorName : name;
}

/** The stable names of a class and its ancestors up to (not including) `Error`. */
function classNamesOf(type: object): string[] {
  const names: string[] = [];
  for (let current = type; current !== Error && current !== Function.prototype; ) {
    names.push(classNameOf(current));
    current = Object.getPrototypeOf(current) as object;
  }
  return names;
}

/**
 * An option given to the store or the processor is missing or out of range, or the processor
 * is registered as a middy middleware. Thrown at creation or in middy's `before`, never while
 * a batch is being committed.
 *
 * @example
 * ```ts
 * new InvalidConfigurationError('concurrency', 0, 'an integer from 1 to 1000');
 * ```
 */
export class InvalidConfigurationError extends InboxError {
  static override readonly errorName: string = 'InvalidConfigurationError';
  readonly option: string;
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
 * Thrown by `inboxConfigFromEnvironment()` at cold start, before any message is read.
 *
 * @example
 * ```ts
 * try { inboxConfigFromEnvironment(); }
 * catch (error) { if (error instanceof EnvironmentError) console.error(error.variables); throw error; }
 * ```
 */
export class EnvironmentError extends InboxError {
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
 * non-empty `messageId` or a string `body`). The whole invocation fails loudly, so that
 * Lambda retries every record rather than acknowledging anything by mistake.
 *
 * @example
 * ```ts
 * await expect(processSqsBatch({} as SQSEvent, handler, opts)).rejects.toThrow(MalformedEventError);
 * ```
 */
export class MalformedEventError extends InboxError {
  static override readonly errorName: string = 'MalformedEventError';
  readonly path: string;
  constructor(path: string, value: unknown, expected: string) {
    super(
      `Not an SQS event: ${path} is ${describeType(value)}, expected ${expected}. ` +
        'Invoke this handler only from an SQS event source mapping.',
    );
    this.path = path;
  }
}

/**
 * A failure that retrying cannot fix. Throw it (or a subclass) from your handler for a
 * message that must not be retried: it goes to `deadLetterQueueUrl` when one is set,
 * otherwise it is reported as failed and the queue's redrive policy takes over.
 *
 * @example
 * ```ts
 * if (!account) throw new PermanentError(`unknown account ${body.accountId}`);
 * ```
 */
export class PermanentError extends InboxError {
  static override readonly errorName: string = 'PermanentError';
}

/**
 * The body is not valid input for the parser (by default: not JSON). The message names the
 * position and the body's length, never its content: `JSON.parse`'s own error quotes the body,
 * so it is not kept. A custom parser's error is kept as `parserError`, named by its class only.
 *
 * @example
 * ```ts
 * if (error instanceof MessageParseError) console.log(error.messageId, error.position);
 * ```
 */
export class MessageParseError extends PermanentError {
  static override readonly errorName: string = 'MessageParseError';
  readonly messageId: string;
  /** Where in the body `JSON.parse` stopped, when it said. */
  readonly position: number | undefined;
  /**
   * A custom parser's own error. Not `cause`, which loggers print: its message may quote the
   * body. Not enumerable either. `JSON.parse`'s error is not kept at all.
   */
  readonly parserError: unknown;
  constructor(
    messageId: string,
    failure: { parser: 'json' | 'custom'; error: unknown; bodyLength: number },
  ) {
    const position = failure.parser === 'json' ? jsonErrorPosition(failure.error) : undefined;
    const what =
      failure.parser === 'json'
        ? `is not valid JSON${position === undefined ? '' : ` at position ${position}`}`
        : `could not be parsed by the parser option (${errorName(failure.error)})`;
    super(
      `Message ${messageId}: the body (${failure.bodyLength} characters) ${what}. ` +
        'Send a JSON body, or pass a `parser` option for another format.',
    );
    this.messageId = messageId;
    this.position = position;
    this.parserError = failure.parser === 'custom' ? failure.error : undefined;
    hideField(this, 'parserError');
  }
}

/** The position `JSON.parse` reports (`… at position 12`), without the text it quotes. */
function jsonErrorPosition(error: unknown): number | undefined {
  const match = error instanceof Error ? /at position (\d+)/.exec(error.message) : null;
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * One problem reported by a Standard Schema validator.
 *
 * @example
 * ```ts
 * const issue: SchemaIssue = { path: 'lines.0.quantity', message: 'must be positive' };
 * ```
 */
export interface SchemaIssue {
  readonly message: string;
  readonly path: string;
}

/**
 * The parsed body failed the `schema` option's validation.
 *
 * @example
 * ```ts
 * if (error instanceof SchemaValidationError) console.log(error.issues.map((i) => i.path));
 * ```
 */
export class SchemaValidationError extends PermanentError {
  static override readonly errorName: string = 'SchemaValidationError';
  readonly messageId: string;
  readonly issues: readonly SchemaIssue[];
  constructor(messageId: string, issues: readonly SchemaIssue[]) {
    const paths = [...new Set(issues.map((issue) => issue.path || '(root)'))].join(', ');
    super(
      `Message ${messageId} failed schema validation at ${paths} (${issues.length} issue` +
        `${issues.length === 1 ? '' : 's'}; see error.issues).`,
    );
    this.messageId = messageId;
    this.issues = issues;
    // Some validators quote the received value in an issue's message: kept off the enumerable
    // fields that loggers print.
    hideField(this, 'issues');
  }
}

/**
 * The `key` option did not produce a usable dedup key for a message (it threw, or returned
 * something other than a non-empty string of at most 1,024 bytes).
 *
 * @example
 * ```ts
 * if (error instanceof KeyDerivationError) console.log(error.valueType);
 * ```
 */
export class KeyDerivationError extends PermanentError {
  static override readonly errorName: string = 'KeyDerivationError';
  readonly messageId: string;
  /** What the key function returned, by type and length only: `a string of 1100 bytes`. */
  readonly valueType: string;
  /**
   * What the key function threw, if it threw. Not `cause`, which loggers print: a validator's
   * or `JSON.parse`'s message can quote the body. Not enumerable either.
   */
  readonly keyFunctionError: unknown;
  constructor(messageId: string, value: unknown, thrown?: unknown) {
    const valueType = describeKeyType(value);
    super(
      `Message ${messageId}: the dedup key is ${valueType}` +
        (thrown === undefined ? '' : ` (the key function threw ${errorName(thrown)})`) +
        '; the `key` option must return a non-empty string of at most 1,024 bytes.',
    );
    this.messageId = messageId;
    this.valueType = valueType;
    this.keyFunctionError = thrown;
    hideField(this, 'keyFunctionError');
  }
}

/**
 * The same dedup key arrived with a different body than the one already processed. Nothing
 * is applied: either the producer reused an id for a different event, or the key function
 * is too coarse.
 *
 * @example
 * ```ts
 * if (error instanceof PayloadMismatchError) console.log(error.existing.messageId);
 * ```
 */
export class PayloadMismatchError extends PermanentError {
  static override readonly errorName: string = 'PayloadMismatchError';
  readonly key: string;
  readonly payloadHash: string;
  readonly existing: { readonly messageId: string; readonly payloadHash: string };
  constructor(
    key: string,
    payloadHash: string,
    existing: { messageId: string; payloadHash: string },
  ) {
    super(
      `The dedup key was already processed from message ${existing.messageId} with a ` +
        `different body (sha256 ${existing.payloadHash}, now ${payloadHash}). Give distinct ` +
        'events distinct keys, or make the key function include what tells them apart.',
    );
    this.key = key;
    this.payloadHash = payloadHash;
    // Only these two: the entry itself holds the key, which is not to reach the logs.
    this.existing = { messageId: existing.messageId, payloadHash: existing.payloadHash };
    hideField(this, 'key');
  }
}

/**
 * The handler's transaction breaks a DynamoDB `TransactWriteItems` rule, checked before the
 * call: at most 99 business operations (one slot is the inbox entry's), at most 4 MB in all,
 * 400 KB per item, one operation per item, and well-formed operations.
 *
 * @example
 * ```ts
 * if (error instanceof TransactionLimitError && error.limit === 'operationCount') split();
 * ```
 */
export class TransactionLimitError extends PermanentError {
  static override readonly errorName: string = 'TransactionLimitError';
  readonly limit: TransactionLimit;
  readonly actual: number | string;
  readonly maximum: number | string;
  constructor(
    limit: TransactionLimit,
    detail: string,
    actual: number | string,
    maximum: number | string,
    cause?: unknown,
  ) {
    super(`Transaction rejected before sending (${limit}): ${detail}`, { cause });
    this.limit = limit;
    this.actual = actual;
    this.maximum = maximum;
  }
}

/**
 * A condition of one of the handler's operations failed inside the transaction (for example
 * a stock check). Nothing was written, the inbox entry included; the record is retried.
 *
 * @example
 * ```ts
 * if (error instanceof BusinessConditionFailedError) console.log(error.operationIndex);
 * ```
 */
export class BusinessConditionFailedError extends InboxError {
  static override readonly errorName: string = 'BusinessConditionFailedError';
  readonly operationIndex: number;
  readonly operationType: string;
  readonly tableName: string;
  readonly key: Record<string, unknown> | undefined;
  constructor(
    operation: { index: number; type: string; tableName: string; key?: Record<string, unknown> },
    cause?: unknown,
  ) {
    super(
      `The condition of operation #${operation.index} (${operation.type} on ${operation.tableName}` +
        `${operation.key ? ` by ${Object.keys(operation.key).join(', ')}` : ''}) failed; nothing ` +
        'was written and the message will be retried.',
      { cause },
    );
    this.operationIndex = operation.index;
    this.operationType = operation.type;
    this.tableName = operation.tableName;
    // The key's values are message content: readable here, off the fields loggers print.
    this.key = operation.key;
    hideField(this, 'key');
  }
}

/**
 * DynamoDB answered with an error that a later attempt may not get: a transaction conflict,
 * throttling, a 5xx or a timeout. Retried a few times in the invocation, then reported as a
 * failed record so SQS redelivers it.
 *
 * @example
 * ```ts
 * if (error instanceof TransientStoreError) console.log(error.reason);
 * ```
 */
export class TransientStoreError extends InboxError {
  static override readonly errorName: string = 'TransientStoreError';
  readonly reason: TransientReason;
  constructor(reason: TransientReason, cause: unknown) {
    super(`DynamoDB transient failure (${reason}): ${errorMessage(cause)}`, { cause });
    this.reason = reason;
  }
}

/**
 * A record had not settled when the invocation had to answer: its deadline (the Lambda
 * context's remaining time less `deadlineMarginMillis`) passed. It is reported failed so that
 * the batch response reaches Lambda in time and the committed records are acknowledged; SQS
 * delivers it again. If its commit was already on its way it may still land: the inbox entry's
 * condition then makes the redelivered copy a duplicate. Also the `reason` of `message.signal`.
 *
 * @example
 * ```ts
 * if (outcome.error instanceof RecordDeadlineError) console.log(outcome.error.deadlineMillis);
 * ```
 */
export class RecordDeadlineError extends InboxError {
  static override readonly errorName: string = 'RecordDeadlineError';
  /** Milliseconds from the start of the batch to the deadline. */
  readonly deadlineMillis: number;
  constructor(deadlineMillis: number) {
    super(
      `The record had not settled ${deadlineMillis} ms into the invocation, its deadline before ` +
        'the Lambda timeout; it is reported failed so the batch answers in time. Make the ' +
        'handler faster, or give it an AbortSignal-aware client (message.signal).',
    );
    this.deadlineMillis = deadlineMillis;
  }
}

/**
 * The inbox table does not have the key schema the library needs (partition key `pk` of type
 * String, no sort key): a deploy mistake. Not permanent: the record is reported failed and SQS
 * retries it, so the queue keeps its messages until the table is fixed instead of draining them
 * into the DLQ. Logged at ERROR on every attempt.
 *
 * @example
 * ```ts
 * if (error instanceof InboxTableSchemaError) console.error(error.tableName);
 * ```
 */
export class InboxTableSchemaError extends InboxError {
  static override readonly errorName: string = 'InboxTableSchemaError';
  readonly tableName: string;
  constructor(tableName: string, cause: unknown) {
    super(
      `The inbox table ${tableName} does not have the key schema sqs-inbox needs: partition key ` +
        '"pk" of type String and no sort key (DynamoDB: ' +
        `${errorMessage(cause)}). Fix the table (the InboxTable construct creates it right); ` +
        'messages are retried, not dead-lettered, until then.',
      { cause },
    );
    this.tableName = tableName;
  }
}

/**
 * The handler added an operation to `tx` after it had settled: the message's transaction was
 * already on its way, so the operation cannot be part of it. Thrown by the late call, where the
 * handler forgot to `await` its work (a fire-and-forget promise, `array.forEach(async …)`).
 *
 * @example
 * ```ts
 * await Promise.all(lines.map(async (line) => tx.update(await toUpdate(line)))); // not forEach
 * ```
 */
export class TransactionClosedError extends InboxError {
  static override readonly errorName: string = 'TransactionClosedError';
  readonly messageId: string;
  constructor(messageId: string, operationType: string) {
    super(
      `${operationType} added to tx after the handler of message ${messageId} settled; its ` +
        'transaction was already committed or abandoned without it. Await all your work ' +
        'before the handler returns (Promise.all over array.map, not array.forEach(async …)).',
    );
    this.messageId = messageId;
  }
}

/**
 * A permanently failing message could not be sent to the dead-letter queue, so it is
 * reported as failed instead of being acknowledged: nothing is lost.
 *
 * @example
 * ```ts
 * if (error instanceof DeadLetterSendError) console.log(error.queueUrl);
 * ```
 */
export class DeadLetterSendError extends InboxError {
  static override readonly errorName: string = 'DeadLetterSendError';
  readonly queueUrl: string;
  constructor(queueUrl: string, cause: unknown) {
    super(`Could not send to dead-letter queue ${queueUrl}: ${errorMessage(cause)}`, { cause });
    this.queueUrl = queueUrl;
  }
}

/**
 * Renders a value for an error message: short, typed, never `[object Object]`.
 *
 * @example
 * ```ts
 * describe('') // => 'an empty string'
 * ```
 */
export function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (value === '') return 'an empty string';
  if (typeof value === 'function') return 'a function';
  let text: string;
  try {
    text =
      typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = safeString(value);
  }
  const shown = text.length > 120 ? `${text.slice(0, 117)}...` : text;
  return `${shown} (${Array.isArray(value) ? 'array' : typeof value})`;
}

/**
 * The message of an unknown thrown value.
 *
 * @example
 * ```ts
 * errorMessage(new Error('boom')) // => 'boom'
 * ```
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : safeString(error);
}

/** `String(value)`, or a description of its type when converting throws (no prototype, a throwing `toString`). */
function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return `[${typeof value} that cannot be converted to a string]`;
  }
}

/**
 * A value's type for an error message, without its content: `a string of 12 characters`.
 *
 * @example
 * ```ts
 * describeType({ a: 1 }) // => 'an object'
 * ```
 */
export function describeType(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (typeof value === 'string')
    return value === '' ? 'an empty string' : `a string of ${value.length} characters`;
  if (Array.isArray(value)) return `an array of ${value.length} elements`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function describeKeyType(value: unknown): string {
  if (typeof value !== 'string' || value === '') return describeType(value);
  return `a string of ${Buffer.byteLength(value)} bytes`;
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : `a thrown ${typeof error}`;
}

/** Keeps a field readable but off `Object.keys`, so loggers that print every field skip it. */
function hideField(target: object, field: string): void {
  Object.defineProperty(target, field, { enumerable: false });
}
