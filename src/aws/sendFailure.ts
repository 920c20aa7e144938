import { DestinationRefusedError, DestinationUnavailableError } from '../errors.js';

// Codes that name a passing condition, whatever their HTTP status: throttling, an expired
// credential the SDK renews, a service that is busy or failing inside.
const TRANSIENT_CODES = new Set([
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'RequestThrottled',
  'AWS.SimpleQueueService.RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'KmsThrottled',
  'KMS.ThrottlingException',
  'ExpiredToken',
  'ExpiredTokenException',
  'RequestExpired',
  'InternalFailure',
  'InternalError',
  'InternalException',
  'ServiceUnavailable',
  'TimeoutError',
]);

interface SdkError {
  readonly name?: string;
  readonly Code?: string;
  readonly $retryable?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: number };
}

/**
 * Whether a service error code names a passing condition (throttling, a server-side failure),
 * as EventBridge's per-entry `ErrorCode` and SNS's or SQS's batch `Code` do.
 *
 * @example
 * ```ts
 * isTransientCode('ThrottlingException'); // => true
 * ```
 */
export function isTransientCode(code: string): boolean {
  return TRANSIENT_CODES.has(code);
}

/**
 * Turns an SDK error of a send into the relay's: a refusal no retry fixes (a 4xx that is not
 * throttling) becomes {@link DestinationRefusedError}; anything else (throttling, 5xx,
 * timeouts, a lost connection, an error that is no SDK answer) {@link DestinationUnavailableError}.
 *
 * @example
 * ```ts
 * try { await sqs.send(command); } catch (error) { throw sendFailure(error, queueUrl, message.id); }
 * ```
 */
export function sendFailure(
  error: unknown,
  destination: string,
  messageId: string,
): DestinationRefusedError | DestinationUnavailableError {
  const sdk = (typeof error === 'object' && error !== null ? error : {}) as SdkError;
  const code = sdk.Code ?? sdk.name ?? 'Error';
  const status = sdk.$metadata?.httpStatusCode;
  const refused =
    status !== undefined &&
    status >= 400 &&
    status < 500 &&
    status !== 429 &&
    !sdk.$retryable &&
    !isTransientCode(code);
  return refused
    ? new DestinationRefusedError(destination, messageId, code, error)
    : new DestinationUnavailableError(destination, code, error);
}
