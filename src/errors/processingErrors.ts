import type { TransientReason } from '../constants/values.js';
import { errorMessage, hideField } from './errorText.js';
import { InboxError } from './InboxError.js';

/**
 * A condition of one of the handler's operations failed inside the transaction (for example
 * a stock check). Nothing was written, the inbox entry included; the record is retried.
 *
 * @example
 * ```ts
 * if (error instanceof BusinessConditionFailedError) console.log(error.operationIndex);
 * ```
 * @public
 */
export class BusinessConditionFailedError extends InboxError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'BusinessConditionFailedError';
  /** The position of the refused operation among the handler's, from 0. */
  readonly operationIndex: number;
  /** Its type: `Put`, `Update`, `Delete` or `ConditionCheck`. */
  readonly operationType: string;
  /** The table of the refused operation. */
  readonly tableName: string;
  /** The key of the item it names (a Put's key as far as it is known), without the item's other attributes. */
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
 * @public
 */
export class TransientStoreError extends InboxError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'TransientStoreError';
  /** Why the store could not tell: a conflict, throttling, a 5xx or a timeout. */
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
 * On its last receive the library does not dead-letter it (SQS has it as failed): the redrive
 * policy moves it without `inbox.error`, and an ERROR log line pairs its `messageId` (the move
 * keeps it) with this error.
 *
 * @example
 * ```ts
 * if (outcome.error instanceof RecordDeadlineError) console.log(outcome.error.deadlineMillis);
 * ```
 * @public
 */
export class RecordDeadlineError extends InboxError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
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
 * into the DLQ. Logged at ERROR on every attempt. On its last receive the message is
 * dead-lettered naming this error (nothing can have committed): fix the table, then redrive.
 *
 * @example
 * ```ts
 * if (error instanceof InboxTableSchemaError) console.error(error.tableName);
 * ```
 * @public
 */
export class InboxTableSchemaError extends InboxError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'InboxTableSchemaError';
  /** The inbox table whose key schema does not fit. */
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
 * The handler added an operation to `tx` (or called `step`, or `tx.publish`) after it had
 * settled: the message's transaction was already on its way, so the operation cannot be part of it. Thrown by the late call, where the
 * handler forgot to `await` its work (a fire-and-forget promise, `array.forEach(async …)`).
 *
 * @example
 * ```ts
 * import type { TransactUpdateInput } from 'sqs-inbox/types';
 * declare const lines: readonly string[];
 * declare function toUpdate(line: string): Promise<TransactUpdateInput>;
 * // ---cut---
 * await Promise.all(lines.map(async (line) => tx.update(await toUpdate(line)))); // not forEach
 * ```
 * @public
 */
export class TransactionClosedError extends InboxError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'TransactionClosedError';
  /** The SQS message id of the message whose handler had settled before the late call. */
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
 * A permanently failing message could not be sent to the dead-letter queue, or the queue is
 * the source queue itself, so it is reported as failed instead of being acknowledged: nothing
 * is lost, and SQS delivers it again. A copy the queue refuses as too large (SQS counts the
 * attributes with the body against its `MaximumMessageSize`) is first sent again without
 * `inbox.errorMessage` and with the key hashed, then with only its reason and its own
 * attributes; only when none fits does the record fail with this error.
 *
 * @example
 * ```ts
 * if (error instanceof DeadLetterSendError) console.log(error.queueUrl);
 * ```
 * @public
 */
export class DeadLetterSendError extends InboxError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'DeadLetterSendError';
  /** The URL of the dead-letter queue that did not take it (the consumer's or the relay's). */
  readonly queueUrl: string;
  constructor(queueUrl: string, cause: unknown) {
    super(`Could not send to dead-letter queue ${queueUrl}: ${errorMessage(cause)}`, { cause });
    this.queueUrl = queueUrl;
  }
}
