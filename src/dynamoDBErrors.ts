import {
  type CancellationReason,
  InternalServerError,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ThrottlingException,
} from '@aws-sdk/client-dynamodb';
import {
  InboxError,
  TransactionLimit,
  TransactionLimitError,
  TransientReason,
  TransientStoreError,
} from './errors.js';

/**
 * Whether an error is the SDK exception `type`. A second copy of the SDK in node_modules
 * (common when an app pins its own version) has its own classes, so `instanceof` alone would
 * miss its errors; the exception's wire name is checked as well.
 *
 * @example
 * ```ts
 * if (isException(error, TransactionCanceledException)) console.log(error.CancellationReasons);
 * ```
 */
export function isException<T extends Error>(
  error: unknown,
  type: abstract new (...args: never[]) => T,
): error is T {
  return error instanceof type || (error instanceof Error && error.name === type.name);
}
/**
 * The transient reason among a cancelled transaction's reasons, if any.
 *
 * @example
 * ```ts
 * transientReasonOf([{ Code: 'None' }, { Code: 'TransactionConflict' }]) // => 'TransactionConflict'
 * ```
 */
export function transientReasonOf(
  reasons: readonly CancellationReason[],
): TransientReason | undefined {
  const codes = new Set(reasons.map((reason) => reason.Code));
  if (codes.has('TransactionConflict')) return TransientReason.TransactionConflict;
  if (codes.has('ThrottlingError') || codes.has('ProvisionedThroughputExceeded')) {
    return TransientReason.Throttling;
  }
  return undefined;
}

const LIMIT_MESSAGES: ReadonlyArray<[RegExp, TransactionLimit]> = [
  [/multiple operations on one item/i, TransactionLimit.SameItem],
  [/4\s?MB/i, TransactionLimit.TransactionBytes],
  [/item size has exceeded/i, TransactionLimit.ItemBytes],
  [/less than or equal to 100/i, TransactionLimit.OperationCount],
];

/**
 * Maps an SDK error to an inbox error where one applies, and returns any other error unchanged.
 * Network-level timeouts carry no SDK class, so those alone are recognised by name and code.
 *
 * @example
 * ```ts
 * throw translate(error); // a ThrottlingException becomes a TransientStoreError
 * ```
 */
export function translate(error: unknown): unknown {
  if (error instanceof InboxError || !(error instanceof Error)) return error;
  if (
    isException(error, ProvisionedThroughputExceededException) ||
    isException(error, ThrottlingException) ||
    isException(error, RequestLimitExceeded)
  ) {
    return new TransientStoreError(TransientReason.Throttling, error);
  }
  const fault = error as Error & {
    $fault?: string;
    $metadata?: { httpStatusCode?: number };
    code?: string;
  };
  if (
    isException(error, InternalServerError) ||
    fault.$fault === 'server' ||
    (fault.$metadata?.httpStatusCode ?? 0) >= 500
  ) {
    return new TransientStoreError(TransientReason.ServerError, error);
  }
  if (error.name === 'TimeoutError' || fault.code === 'ETIMEDOUT' || fault.code === 'ECONNRESET') {
    return new TransientStoreError(TransientReason.Timeout, error);
  }
  if (error.name === 'ValidationException') {
    const limit = LIMIT_MESSAGES.find(([pattern]) => pattern.test(error.message))?.[1];
    if (limit !== undefined) {
      return new TransactionLimitError(
        limit,
        `DynamoDB rejected the transaction: ${error.message}`,
        limit,
        limit,
        error,
      );
    }
  }
  return error;
}
