import type { SqsRefusal } from './checkSendMessage.js';

/** The longest visibility timeout SQS takes, and the most a message may stay hidden per receive. */
export const MAX_VISIBILITY_SECONDS = 43_200;

/**
 * A visibility change a queue of {@link InMemoryQueues} applied: which receive of which message,
 * and how long it hides the message from the change on.
 *
 * @example
 * ```ts
 * const [change] = queues.visibilityChanges(); change?.visibilityTimeoutSeconds // => 62
 * ```
 * @public
 */
export interface ChangedVisibility {
  /** The URL of the queue the message was delivered from. */
  readonly queueUrl: string;
  /** The SQS message id. */
  readonly messageId: string;
  /** The receipt handle of the receive the change named. */
  readonly receiptHandle: string;
  /** How long SQS hides the message from the change on (0: visible at once). */
  readonly visibilityTimeoutSeconds: number;
  /** When the change was applied, by the queues' clock (epoch milliseconds). */
  readonly changedAtMillis: number;
}

/** One receive of a message: when, and when a visibility change makes it visible again. */
interface Receive {
  readonly messageId: string;
  readonly receivedAtMillis: number;
  /** Unknown until a change sets it: the queue's own visibility timeout is not modelled. */
  visibleAtMillis: number | undefined;
}

/**
 * The receives of the messages delivered from source queues, and the visibility changes SQS
 * applies to them: a timeout of 0–43,200 whole seconds, a handle the queue issued and that is
 * still its message's latest, a message hidden at most 12 hours since its receive. A handle
 * whose change already ran out (the message visible, not received since) changes nothing, as
 * on AWS. Internal to the in-memory queues.
 */
export class InFlightMessages {
  /** The handles each queue issued, and the receive each names. */
  readonly #issued = new Map<string, Map<string, Receive>>();
  /** Each message's latest handle, by queue URL and message id. */
  readonly #latest = new Map<string, string>();
  readonly #changes: ChangedVisibility[] = [];

  /** A receive of a message from a queue: its handle is the message's latest from now on. */
  receive(queueUrl: string, messageId: string, receiptHandle: string, nowMillis: number): void {
    const issued = this.#issued.get(queueUrl) ?? new Map<string, Receive>();
    this.#issued.set(queueUrl, issued);
    issued.set(receiptHandle, {
      messageId,
      receivedAtMillis: nowMillis,
      visibleAtMillis: undefined,
    });
    this.#latest.set(messageKey(queueUrl, messageId), receiptHandle);
  }

  /** Applies one change, or answers SQS's refusal of it. */
  change(
    queueUrl: string,
    receiptHandle: string,
    seconds: number,
    nowMillis: number,
  ): SqsRefusal | undefined {
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_VISIBILITY_SECONDS) {
      return invalid(
        `Value ${seconds} for parameter VisibilityTimeout is invalid. Reason: Must be between 0 and ${MAX_VISIBILITY_SECONDS}, if provided.`,
      );
    }
    const receive = this.#issued.get(queueUrl)?.get(receiptHandle);
    if (receive === undefined) return invalidHandle(receiptHandle);
    if (this.#latest.get(messageKey(queueUrl, receive.messageId)) !== receiptHandle) {
      return invalid(
        `Value ${receiptHandle} for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not available for visibility timeout change.`,
      );
    }
    // Its change ran out and nothing received it since: AWS answers success and changes nothing.
    if (receive.visibleAtMillis !== undefined && receive.visibleAtMillis <= nowMillis) {
      return undefined;
    }
    if (nowMillis - receive.receivedAtMillis + seconds * 1_000 > MAX_VISIBILITY_SECONDS * 1_000) {
      return invalid(
        `Value ${seconds} for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [${MAX_VISIBILITY_SECONDS} seconds].`,
      );
    }
    receive.visibleAtMillis = nowMillis + seconds * 1_000;
    this.#changes.push({
      queueUrl,
      messageId: receive.messageId,
      receiptHandle,
      visibilityTimeoutSeconds: seconds,
      changedAtMillis: nowMillis,
    });
    return undefined;
  }

  /** The changes applied, oldest first. */
  changes(): readonly ChangedVisibility[] {
    return [...this.#changes];
  }
}

function messageKey(queueUrl: string, messageId: string): string {
  return `${queueUrl}\u0000${messageId}`;
}

function invalidHandle(receiptHandle: string): SqsRefusal {
  return {
    shape: 'ReceiptHandleIsInvalid',
    code: 'ReceiptHandleIsInvalid',
    message: `The input receipt handle "${receiptHandle}" is not a valid receipt handle.`,
  };
}

function invalid(message: string): SqsRefusal {
  return { shape: 'InvalidParameterValue', code: 'InvalidParameterValue', message };
}
