import { InboxStatus, type TransactionLimit } from '../constants/values.js';
import { describeKeyType, errorName, hideField, jsonErrorPosition } from './errorText.js';
import { InboxError } from './InboxError.js';

/**
 * A failure that retrying cannot fix. Throw it (or a subclass) from your handler for a
 * message that must not be retried: it goes to `deadLetter.queueUrl` when one is set,
 * otherwise it is reported as failed and the queue's redrive policy takes over.
 *
 * @example
 * ```ts
 * declare const body: Payment;
 * declare const account: { balanceCents: number } | undefined;
 * // ---cut---
 * if (!account) throw new PermanentError(`unknown account ${body.accountId}`);
 * ```
 * @public
 */
export class PermanentError extends InboxError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
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
 * @public
 */
export class MessageParseError extends PermanentError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'MessageParseError';
  /** The SQS message id of the record whose body did not parse. */
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

/**
 * One problem reported by a Standard Schema validator.
 *
 * @example
 * ```ts
 * const issue: SchemaIssue = { path: 'lines.0.quantity', message: 'must be positive' };
 * ```
 * @public
 */
export interface SchemaIssue {
  /** The validator's message, as it wrote it: some quote the value they refused. */
  readonly message: string;
  /** Where the value is, its keys joined by `.` (`lines.0.quantity`); empty for the whole body. */
  readonly path: string;
}

/**
 * The parsed body failed the `schema` option's validation.
 *
 * @example
 * ```ts
 * if (error instanceof SchemaValidationError) console.log(error.issues.map((i) => i.path));
 * ```
 * @public
 */
export class SchemaValidationError extends PermanentError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'SchemaValidationError';
  /** The SQS message id of the record that failed validation. */
  readonly messageId: string;
  /**
   * What the validator reported, in its order. Not enumerable, so loggers that print an
   * error's own fields leave it out: an issue's message may quote the value it refused.
   */
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
 * @public
 */
export class KeyDerivationError extends PermanentError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'KeyDerivationError';
  /** The SQS message id of the record that got no usable key. */
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
 * The same dedup key arrived with a different body than the one its inbox entry holds: a
 * committed entry, or an unfinished one (a handler with steps that failed after journaling
 * some, its lease released or lapsed), whose journal may hold an effect that already happened.
 * Nothing is applied, and the entry is not taken over: either the producer reused an id for a
 * different event, or the key function is too coarse.
 *
 * @example
 * ```ts
 * if (error instanceof PayloadMismatchError) console.log(error.existing.messageId);
 * ```
 * @public
 */
export class PayloadMismatchError extends PermanentError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'PayloadMismatchError';
  /**
   * The dedup key both messages share. Not enumerable, so loggers that print an error's own
   * fields leave it out: a key can be message content.
   */
  readonly key: string;
  /** SHA-256 (hex) of this message's payload. */
  readonly payloadHash: string;
  /**
   * The entry holding the key: the SQS message id that wrote it and its payload's SHA-256
   * (hex). Nothing else of it, so that nothing of its content reaches a log.
   */
  readonly existing: { readonly messageId: string; readonly payloadHash: string };
  constructor(
    key: string,
    payloadHash: string,
    existing: { messageId: string; payloadHash: string; status?: string },
  ) {
    const held =
      existing.status === undefined || existing.status === InboxStatus.Completed
        ? `was already processed from message ${existing.messageId}`
        : `is held by message ${existing.messageId}, not committed yet (${existing.status}, its steps journaled)`;
    super(
      `The dedup key ${held} with a different body (sha256 ${existing.payloadHash}, now ` +
        `${payloadHash}). Give distinct events distinct keys, or make the key function include ` +
        'what tells them apart.',
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
 * 400 KB per item, one operation per item, well-formed operations, none on the inbox table
 * (only the library writes it), and values lib-dynamodb can convert (not a `Date`, `undefined`
 * or an empty set). Any request DynamoDB refuses with a `ValidationException` is one too.
 *
 * @example
 * ```ts
 * if (error instanceof TransactionLimitError) {
 *   console.error(`${error.limit}: ${error.actual}, at most ${error.maximum}`);
 *   // e.g. 'operationCount: 120, at most 99'
 * }
 * ```
 * @public
 */
export class TransactionLimitError extends PermanentError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'TransactionLimitError';
  /** The rule the transaction breaks. */
  readonly limit: TransactionLimit;
  /**
   * What breaks it: a number for a count or a size (operations, bytes); otherwise words: the
   * operation (`Put #2 on orders`), the type of what was given (`undefined`, `an array of 2
   * elements`), or DynamoDB's cancellation code or validation message, as DynamoDB wrote it.
   */
  readonly actual: number | string;
  /**
   * What the rule allows: a number for a count or a size (99 operations, 409,600 bytes an
   * item), otherwise the rule in words (`one operation per item`).
   */
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
 * The body is not what the consumer's declared `sources` deliver: an SNS notification on a
 * consumer that declares raw delivery or EventBridge, a direct message on an SNS one, a body
 * that is no EventBridge event (or one without its `id`) on a consumer fed by a rule, an SNS
 * `SubscriptionConfirmation`, a DynamoDB stream record with no outbox message or with an item a
 * pipe cannot relay whole. It is never keyed or hashed as something else. The
 * message names the shape found, never the content.
 *
 * @example
 * ```ts
 * if (error instanceof EnvelopeMismatchError) console.log(error.declared, error.found);
 * ```
 * @public
 */
export class EnvelopeMismatchError extends PermanentError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'EnvelopeMismatchError';
  /** The SQS message id of the record whose body no declared source delivers. */
  readonly messageId: string;
  /** The declared sources, e.g. `['sns']`. */
  readonly declared: readonly string[];
  /** What the body is instead, e.g. `an SNS notification`, `not JSON`. */
  readonly found: string;
  constructor(messageId: string, declared: readonly string[], found: string, fix: string) {
    super(
      `Message ${messageId}: the body is ${found}, which the declared sources ` +
        `(${declared.join(', ')}) do not deliver. ${fix}`,
    );
    this.messageId = messageId;
    this.declared = declared;
    this.found = found;
  }
}
