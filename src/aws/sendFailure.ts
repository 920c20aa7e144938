import { DestinationKind } from '../constants/values.js';
import { DestinationRefusedError, DestinationUnavailableError } from '../errors.js';
import {
  COMMON_ERRORS,
  type DocumentedError,
  PUT_EVENTS_ERRORS,
  SendVerdict,
  SNS_PUBLISH_ERRORS,
  SQS_SEND_MESSAGE_ERRORS,
} from './documentedSendErrors.js';

/**
 * The service a send goes to, whose documented errors classify its failures.
 *
 * @example
 * ```ts
 * sendVerdict(error, SendService.Sns);
 * ```
 */
export const SendService = { Sqs: 'sqs', Sns: 'sns', EventBridge: 'eventbridge' } as const;
/** One of the values of `SendService`. */
export type SendService = (typeof SendService)[keyof typeof SendService];

const ERRORS_BY_SERVICE: Record<SendService, readonly DocumentedError[]> = {
  [SendService.Sqs]: [...SQS_SEND_MESSAGE_ERRORS, ...COMMON_ERRORS],
  [SendService.Sns]: [...SNS_PUBLISH_ERRORS, ...COMMON_ERRORS],
  [SendService.EventBridge]: [...PUT_EVENTS_ERRORS, ...COMMON_ERRORS],
};

/**
 * The service a kind of destination is sent to.
 *
 * @example
 * ```ts
 * serviceOf(DestinationKind.SnsFifoTopic); // => 'sns'
 * ```
 */
export function serviceOf(kind: DestinationKind): SendService {
  if (kind === DestinationKind.SqsQueue || kind === DestinationKind.SqsFifoQueue) {
    return SendService.Sqs;
  }
  return kind === DestinationKind.EventBus ? SendService.EventBridge : SendService.Sns;
}

interface SdkError {
  readonly name?: string;
  readonly Code?: string;
  readonly $retryable?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: number };
}

/**
 * Whether an SDK error of a send to `service` passes (`passing`: retry) or is a refusal no retry
 * fixes (`refused`). A documented error of the service's send action or of every action is
 * taken as the list says, recognised by the SDK's class name or by the wire code (the SDK puts
 * the query code in `Code`). Any other: `refused` when the service answered with a 4xx other
 * than 429 and the SDK does not mark it retryable; `passing` otherwise (5xx, 429, a timeout,
 * a lost connection, an error that is no service answer).
 *
 * @example
 * ```ts
 * sendVerdict(new KMSThrottlingException({ $metadata: { httpStatusCode: 400 }, message: 'x' }), 'sns'); // 'passing'
 * ```
 */
export function sendVerdict(error: unknown, service: SendService): SendVerdict {
  const sdk = (typeof error === 'object' && error !== null ? error : {}) as SdkError;
  const documented = ERRORS_BY_SERVICE[service].find(
    ([name, code]) => sdk.name === name || sdk.Code === code,
  );
  if (documented !== undefined) return documented[2];
  const status = sdk.$metadata?.httpStatusCode;
  const refused =
    status !== undefined && status >= 400 && status < 500 && status !== 429 && !sdk.$retryable;
  return refused ? SendVerdict.Refused : SendVerdict.Passing;
}

/**
 * Turns an SDK error of a send into the relay's, by {@link sendVerdict}: a refusal becomes
 * {@link DestinationRefusedError} (dead-lettered), anything passing
 * {@link DestinationUnavailableError} (retried).
 *
 * @example
 * ```ts
 * try { await sns.send(command); } catch (error) { throw sendFailure(error, 'sns', topicArn, message.id); }
 * ```
 */
export function sendFailure(
  error: unknown,
  service: SendService,
  destination: string,
  messageId: string,
): DestinationRefusedError | DestinationUnavailableError {
  const sdk = (typeof error === 'object' && error !== null ? error : {}) as SdkError;
  const code = sdk.Code ?? sdk.name ?? 'Error';
  return sendVerdict(error, service) === SendVerdict.Refused
    ? new DestinationRefusedError(destination, messageId, code, error)
    : new DestinationUnavailableError(destination, code, error);
}

/**
 * Turns the `ErrorCode` of a failed `PutEvents` entry (a 200 answer) into the relay's error: a
 * documented passing code (`ThrottlingException`, `InternalFailure`) is retried, a documented
 * refusal or any code EventBridge does not document is dead-lettered.
 *
 * @example
 * ```ts
 * throw entryFailure('ThrottlingException', busArn, message.id); // a DestinationUnavailableError
 * ```
 */
export function entryFailure(
  code: string,
  destination: string,
  messageId: string,
): DestinationRefusedError | DestinationUnavailableError {
  const documented = ERRORS_BY_SERVICE[SendService.EventBridge].find(([, wire]) => wire === code);
  return documented?.[2] === SendVerdict.Passing
    ? new DestinationUnavailableError(destination, code)
    : new DestinationRefusedError(destination, messageId, code);
}

/**
 * Whether SQS refused a `SendMessage` as it refuses one over the queue's `MaximumMessageSize`
 * (body and attributes counted): `InvalidParameterValue`. A smaller message may be taken.
 *
 * @example
 * ```ts
 * if (isSqsTooLarge(error)) await sqs.send(smallerCommand);
 * ```
 */
export function isSqsTooLarge(error: unknown): boolean {
  const { name, Code } = (error ?? {}) as { name?: unknown; Code?: unknown };
  return name === 'InvalidParameterValue' || Code === 'InvalidParameterValue';
}
