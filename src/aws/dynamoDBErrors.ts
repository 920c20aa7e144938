import type { CancellationReason } from '@aws-sdk/client-dynamodb';
import { TransactionLimit, TransientReason } from '../constants/values.js';
import { InboxError, TransactionLimitError, TransientStoreError } from '../errors.js';

/**
 * The wire names of the DynamoDB exceptions the store reacts to. They are compared as strings,
 * not with `instanceof`: an app may bundle a second copy of the SDK (its client's errors are then
 * instances of other classes), and minifying bundlers rename the classes themselves, while the
 * `name` an SDK error carries is always the service's exception name.
 *
 * @example
 * ```ts
 * if (isException(error, DynamoDBException.TransactionCanceled)) return cancelled(error);
 * ```
 */
export const DynamoDBException = {
  TransactionCanceled: 'TransactionCanceledException',
  /** A single-item write that met a transaction in progress on its item (the SDK does not retry it). */
  TransactionConflict: 'TransactionConflictException',
  /** A transaction sent again with its `ClientRequestToken` while the first is still running. */
  TransactionInProgress: 'TransactionInProgressException',
  ConditionalCheckFailed: 'ConditionalCheckFailedException',
  Validation: 'ValidationException',
  ProvisionedThroughputExceeded: 'ProvisionedThroughputExceededException',
  Throttling: 'ThrottlingException',
  RequestLimitExceeded: 'RequestLimitExceeded',
  InternalServer: 'InternalServerError',
} as const;
/** One of the values of `DynamoDBException`. */
export type DynamoDBException = (typeof DynamoDBException)[keyof typeof DynamoDBException];

/**
 * Whether an error is the DynamoDB exception with the given wire name.
 *
 * @example
 * ```ts
 * if (isException(error, DynamoDBException.TransactionCanceled)) console.log(error);
 * ```
 */
export function isException(error: unknown, name: DynamoDBException): boolean {
  return error instanceof Error && error.name === name;
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

const LIMIT_MESSAGES: ReadonlyArray<[RegExp, TransactionLimit, string]> = [
  [/multiple operations on one item/i, TransactionLimit.SameItem, 'one operation per item'],
  [/4\s?MB/i, TransactionLimit.TransactionBytes, '4 MB per transaction'],
  [/item size has exceeded/i, TransactionLimit.ItemBytes, '400 KB per item'],
  [/less than or equal to 100/i, TransactionLimit.OperationCount, '100 operations per transaction'],
];

/** DynamoDB's wordings (and DynamoDB Local's) for a key that does not fit the key schema. */
const KEY_SCHEMA_MISMATCH =
  /key element does not match the schema|Missing the key \S+ in the item|Type mismatch for key|required keys was not given a value|number of conditions on the keys is invalid/i;

/**
 * Whether DynamoDB refused a request because a key does not fit the table's key schema.
 *
 * @example
 * ```ts
 * if (isKeySchemaMismatch(error)) await checkInboxTable();
 * ```
 */
export function isKeySchemaMismatch(error: unknown): boolean {
  return (
    isException(error, DynamoDBException.Validation) &&
    KEY_SCHEMA_MISMATCH.test((error as Error).message)
  );
}

/** lib-dynamodb's own refusals to convert a value, thrown before any request is sent. */
const MARSHALLING_FAILURE =
  /^(Unsupported type passed|Pass options\.|Pass a non-empty set|Only Number Set|Special numeric value|NumberValue should not be initialized)|Use NumberValue from @aws-sdk\/lib-dynamodb/;

function isMarshallingFailure(error: Error): boolean {
  const sdkError = error as Error & { $metadata?: unknown };
  return (
    error.name === 'Error' &&
    sdkError.$metadata === undefined &&
    MARSHALLING_FAILURE.test(error.message)
  );
}

/**
 * Maps an SDK error to an inbox error where one applies, and returns any other error unchanged
 * (access denied, a missing table: fixed by a deploy, so left to SQS's retries and redrive).
 * A `ValidationException` is DynamoDB refusing the request itself — a malformed key or
 * expression, or a limit — which no retry can fix, so it becomes a permanent error.
 *
 * @example
 * ```ts
 * throw translate(error); // a ThrottlingException becomes a TransientStoreError
 * ```
 */
export function translate(error: unknown): unknown {
  if (error instanceof InboxError || !(error instanceof Error)) return error;
  const reason = transientReasonOfError(error);
  if (reason !== undefined) return new TransientStoreError(reason, error);
  if (isMarshallingFailure(error)) {
    // Deterministic, so permanent; the SDK's text quotes the value, so it is not kept.
    return new TransactionLimitError(
      TransactionLimit.InvalidOperation,
      'lib-dynamodb could not convert a value of an operation (a Date, undefined, an empty set, ' +
        'a class instance, NaN or an unsafe integer). Convert it to a string or number first, ' +
        "or set the document client's marshallOptions.",
      'a value lib-dynamodb cannot convert',
      'values lib-dynamodb converts',
    );
  }
  if (isException(error, DynamoDBException.Validation)) {
    const [, limit, maximum] = LIMIT_MESSAGES.find(([pattern]) => pattern.test(error.message)) ?? [
      undefined,
      TransactionLimit.InvalidOperation,
      'a request DynamoDB accepts',
    ];
    return new TransactionLimitError(
      limit,
      `DynamoDB rejected the request: ${error.message}`,
      error.message,
      maximum,
      error,
    );
  }
  return error;
}

function transientReasonOfError(error: Error): TransientReason | undefined {
  if (
    isException(error, DynamoDBException.TransactionConflict) ||
    isException(error, DynamoDBException.TransactionInProgress)
  ) {
    return TransientReason.TransactionConflict;
  }
  if (
    isException(error, DynamoDBException.ProvisionedThroughputExceeded) ||
    isException(error, DynamoDBException.Throttling) ||
    isException(error, DynamoDBException.RequestLimitExceeded)
  ) {
    return TransientReason.Throttling;
  }
  const fault = error as Error & {
    $fault?: string;
    $metadata?: { httpStatusCode?: number };
    code?: string;
  };
  if (
    isException(error, DynamoDBException.InternalServer) ||
    fault.$fault === 'server' ||
    (fault.$metadata?.httpStatusCode ?? 0) >= 500
  ) {
    return TransientReason.ServerError;
  }
  // Socket-level failures carry no service exception: recognised by the SDK's name and Node's code.
  if (error.name === 'TimeoutError' || fault.code === 'ETIMEDOUT' || fault.code === 'ECONNRESET') {
    return TransientReason.Timeout;
  }
  return undefined;
}
