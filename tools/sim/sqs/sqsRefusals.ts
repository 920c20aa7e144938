/**
 * What simulated SQS refuses, as SQS refuses it: the error's name is the AWS error code (the
 * SDK names its exceptions so), its message close to AWS's.
 */

/** The longest visibility timeout SQS takes, and the most a message may stay hidden per receive. */
export const MAX_VISIBILITY_SECONDS = 43_200;
/** SQS takes at most this many message attributes on a message. */
const MAX_MESSAGE_ATTRIBUTES = 10;

/**
 * An error as the SDK throws it for an SQS error code.
 *
 * @example
 * ```ts
 * throw sqsError('ReceiptHandleIsInvalid', 'The input receipt handle "x" is not a valid receipt handle.');
 * ```
 */
export function sqsError(code: string, message: string): Error {
  const error = new Error(message);
  error.name = code;
  return error;
}

/**
 * Refuses a message SQS would not take (these queues have no content-based deduplication).
 *
 * @example
 * ```ts
 * checkSend({ name: 'ledger.fifo', fifo: true }, { body: '{}' }); // throws InvalidParameterValue
 * ```
 */
export function checkSend(
  queue: { readonly name: string; readonly fifo: boolean },
  message: {
    readonly groupId?: string;
    readonly deduplicationId?: string;
    readonly attributes?: Readonly<Record<string, unknown>>;
  },
): void {
  const refuse = (why: string) => {
    throw sqsError('InvalidParameterValue', `SendMessage to ${queue.name}: ${why}`);
  };
  if (queue.fifo && message.groupId === undefined) refuse('a FIFO queue needs a MessageGroupId');
  if (queue.fifo && message.deduplicationId === undefined) {
    refuse('a FIFO queue without content-based deduplication needs a MessageDeduplicationId');
  }
  const attributes = Object.keys(message.attributes ?? {}).length;
  if (attributes > MAX_MESSAGE_ATTRIBUTES) {
    refuse(
      `${attributes} message attributes exceed the allowed maximum of ${MAX_MESSAGE_ATTRIBUTES}`,
    );
  }
}

/**
 * Refuses a `ChangeMessageVisibility` timeout outside 0–43,200 seconds (whole seconds).
 *
 * @example
 * ```ts
 * checkVisibilitySeconds(43_201); // throws InvalidParameterValue
 * ```
 */
export function checkVisibilitySeconds(seconds: number): void {
  if (Number.isInteger(seconds) && seconds >= 0 && seconds <= MAX_VISIBILITY_SECONDS) return;
  throw sqsError(
    'InvalidParameterValue',
    `Value ${seconds} for parameter VisibilityTimeout is invalid. Reason: Must be between 0 and ${MAX_VISIBILITY_SECONDS}, if provided.`,
  );
}

/**
 * The refusal of a handle that SQS never issued (for this queue).
 *
 * @example
 * ```ts
 * throw invalidHandle('garbage');
 * ```
 */
export function invalidHandle(receiptHandle: string): Error {
  return sqsError(
    'ReceiptHandleIsInvalid',
    `The input receipt handle "${receiptHandle}" is not a valid receipt handle.`,
  );
}

/**
 * AWS's refusal of a visibility change with a handle whose message was deleted or received
 * again since the handle was issued.
 *
 * @example
 * ```ts
 * throw messageNotAvailable(handle);
 * ```
 */
export function messageNotAvailable(receiptHandle: string): Error {
  return sqsError(
    'InvalidParameterValue',
    `Value ${receiptHandle} for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not available for visibility timeout change.`,
  );
}

/**
 * AWS's refusal of a visibility change that would keep a message hidden more than 12 hours
 * since its receive.
 *
 * @example
 * ```ts
 * throw totalVisibilityBeyondLimit(43_200);
 * ```
 */
export function totalVisibilityBeyondLimit(seconds: number): Error {
  return sqsError(
    'InvalidParameterValue',
    `Value ${seconds} for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [${MAX_VISIBILITY_SECONDS} seconds].`,
  );
}
