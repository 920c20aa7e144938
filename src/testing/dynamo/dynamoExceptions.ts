import {
  type AttributeValue,
  type CancellationReason,
  ConditionalCheckFailedException,
  DynamoDBServiceException,
  IdempotentParameterMismatchException,
  ProvisionedThroughputExceededException,
  ResourceInUseException,
  ResourceNotFoundException,
  ThrottlingException,
  TransactionCanceledException,
  TransactionConflictException,
  TransactionInProgressException,
} from '@aws-sdk/client-dynamodb';

/** What the SDK puts in `$metadata` of a 400 answer; the simulator has no request id. */
const clientFault = () => ({ httpStatusCode: 400 });

/**
 * A `ValidationException` as the SDK builds it: DynamoDB's model has no class for it, so the
 * SDK throws its service base class with that `name`.
 *
 * @example
 * ```ts
 * throw validationException('Transaction request cannot include multiple operations on one item');
 * ```
 */
export function validationException(message: string): DynamoDBServiceException {
  return new DynamoDBServiceException({
    name: 'ValidationException',
    $fault: 'client',
    $metadata: clientFault(),
    message,
  });
}

/**
 * The `IdempotentParameterMismatchException` of a `ClientRequestToken` used again with other
 * parameters (MiniStack's wording; DynamoDB Local says `UnknownError`).
 *
 * @example
 * ```ts
 * throw idempotentParameterMismatch();
 * ```
 */
export function idempotentParameterMismatch(): IdempotentParameterMismatchException {
  return new IdempotentParameterMismatchException({
    message: 'Request token already in use for another request with a different payload',
    $metadata: clientFault(),
  });
}

/**
 * The `ResourceNotFoundException` of a missing table, in real DynamoDB's wording.
 *
 * @example
 * ```ts
 * throw resourceNotFound();
 * ```
 */
export function resourceNotFound(
  message = 'Requested resource not found',
): ResourceNotFoundException {
  return new ResourceNotFoundException({ message, $metadata: clientFault() });
}

/**
 * The `ResourceInUseException` of a `CreateTable` for a table that exists.
 *
 * @example
 * ```ts
 * throw resourceInUse('orders');
 * ```
 */
export function resourceInUse(tableName: string): ResourceInUseException {
  return new ResourceInUseException({
    message: `Table already exists: ${tableName}`,
    $metadata: clientFault(),
  });
}

/**
 * The `ConditionalCheckFailedException` of a single-item write; `Item` (wire form) only when
 * the request asked `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'` and the item exists.
 *
 * @example
 * ```ts
 * throw conditionalCheckFailed(current);
 * ```
 */
export function conditionalCheckFailed(
  item?: Record<string, AttributeValue>,
): ConditionalCheckFailedException {
  return new ConditionalCheckFailedException({
    message: 'The conditional request failed',
    $metadata: clientFault(),
    ...(item === undefined ? {} : { Item: item }),
  });
}

/**
 * The `TransactionCanceledException` DynamoDB throws with one reason per request item, in
 * request order; its message lists the codes.
 *
 * @example
 * ```ts
 * throw transactionCanceled([{ Code: 'None' }, { Code: 'ConditionalCheckFailed', Message: '…' }]);
 * ```
 */
export function transactionCanceled(
  reasons: readonly CancellationReason[],
): TransactionCanceledException {
  const codes = reasons.map((reason) => reason.Code ?? 'None').join(', ');
  return new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes}]`,
    $metadata: clientFault(),
    CancellationReasons: [...reasons],
  });
}

/**
 * The transient cancellation codes a simulation injects.
 *
 * @example
 * ```ts
 * throw dynamo.cancelledBy(input, 0, InjectedCancellation.ThrottlingError);
 * ```
 */
export const InjectedCancellation = {
  TransactionConflict: 'TransactionConflict',
  ThrottlingError: 'ThrottlingError',
} as const;
/**
 * One of {@link InjectedCancellation}.
 *
 * @example
 * ```ts
 * throw dynamo.cancelledBy(input, 0, InjectedCancellation.ThrottlingError);
 * ```
 */
export type InjectedCancellation = (typeof InjectedCancellation)[keyof typeof InjectedCancellation];

// The reason messages of real DynamoDB (unconfirmed wording: no emulator produces them).
const INJECTED_MESSAGES: Record<InjectedCancellation, string> = {
  TransactionConflict: 'Transaction is ongoing for the item',
  ThrottlingError: 'Throughput exceeds the current capacity of your table or index.',
};

/**
 * Which item of a transaction an injected cancellation names: the first (a single message's
 * inbox entry), or, in a transaction with a `ClientRequestToken` (several messages' commit),
 * one drawn from the token, so that any member's item can be the one. No random draw: the
 * worlds drawn before tokens existed stay as they were.
 *
 * @example
 * ```ts
 * throw cancelledBy(input, injectedIndex(input), 'TransactionConflict');
 * ```
 */
export function injectedIndex(transactInput: {
  readonly TransactItems?: readonly unknown[] | undefined;
  readonly ClientRequestToken?: string | undefined;
}): number {
  const count = transactInput.TransactItems?.length ?? 0;
  const token = transactInput.ClientRequestToken;
  if (token === undefined || count === 0) return 0;
  return Number.parseInt(token.slice(0, 8), 16) % count || 0;
}

/**
 * A cancellation no emulator produces, for a simulation to throw instead of applying a
 * transaction: every reason `None` except `code` at `index`. Nothing is applied.
 *
 * @example
 * ```ts
 * throw cancelledBy(input, 1, 'TransactionConflict');
 * ```
 */
export function cancelledBy(
  transactInput: { readonly TransactItems?: readonly unknown[] | undefined },
  index: number,
  code: InjectedCancellation,
): TransactionCanceledException {
  const count = transactInput.TransactItems?.length ?? 0;
  if (!Number.isInteger(index) || index < 0 || index >= count) {
    throw new RangeError(
      `index must be an item of the transaction: 0 to ${count - 1} (given ${index})`,
    );
  }
  const reasons = Array.from(
    { length: count },
    (_, at): CancellationReason =>
      at === index ? { Code: code, Message: INJECTED_MESSAGES[code] } : { Code: 'None' },
  );
  return transactionCanceled(reasons);
}

/**
 * The cancellation of a `TransactWriteItems` that met items another transaction in flight
 * holds: `TransactionConflict` at each of those items, `None` elsewhere; nothing applied.
 *
 * @example
 * ```ts
 * throw heldItemsCancellation(3, [1]); // [None, TransactionConflict, None]
 * ```
 */
export function heldItemsCancellation(
  count: number,
  heldIndexes: readonly number[],
): TransactionCanceledException {
  const reasons = Array.from(
    { length: count },
    (_, at): CancellationReason =>
      heldIndexes.includes(at)
        ? { Code: 'TransactionConflict', Message: INJECTED_MESSAGES.TransactionConflict }
        : { Code: 'None' },
  );
  return transactionCanceled(reasons);
}

/**
 * The `TransactionConflictException` of a `PutItem`, `UpdateItem` or `DeleteItem` whose item a
 * transaction in flight holds (real DynamoDB's wording, unconfirmed: no emulator produces it).
 *
 * @example
 * ```ts
 * throw transactionConflict();
 * ```
 */
export function transactionConflict(): TransactionConflictException {
  return new TransactionConflictException({
    message: INJECTED_MESSAGES.TransactionConflict,
    $metadata: clientFault(),
  });
}

/**
 * The `TransactionInProgressException` of a `TransactWriteItems` that repeats the
 * `ClientRequestToken` of one still in flight (wording unconfirmed: no emulator produces it).
 *
 * @example
 * ```ts
 * throw transactionInProgress();
 * ```
 */
export function transactionInProgress(): TransactionInProgressException {
  return new TransactionInProgressException({
    message: 'The transaction with this request token is still in progress',
    $metadata: clientFault(),
  });
}

/**
 * Whether an answer refused a write because of a transaction in flight: a cancellation with a
 * `TransactionConflict` reason, a `TransactionConflictException`, or a
 * `TransactionInProgressException`.
 *
 * @example
 * ```ts
 * if (isConflictAnswer(error)) conflicts++;
 * ```
 */
export function isConflictAnswer(error: unknown): boolean {
  if (error instanceof TransactionConflictException) return true;
  if (error instanceof TransactionInProgressException) return true;
  if (!(error instanceof TransactionCanceledException)) return false;
  return (error.CancellationReasons ?? []).some((reason) => reason.Code === 'TransactionConflict');
}

const CONTROL_PLANE = new Set([
  'CreateTable',
  'DeleteTable',
  'DescribeTable',
  'UpdateTimeToLive',
  'DescribeTimeToLive',
]);

/**
 * The throttling error of an operation: `ThrottlingException` for table management (as
 * DynamoDB answers control-plane calls), `ProvisionedThroughputExceededException` for item
 * reads and writes.
 *
 * @example
 * ```ts
 * throw throttled('TransactWriteItems');
 * ```
 */
export function throttled(
  operationName: string,
): ThrottlingException | ProvisionedThroughputExceededException {
  if (CONTROL_PLANE.has(operationName)) {
    return new ThrottlingException({
      message: 'Rate of requests exceeds the allowed throughput.',
      $metadata: clientFault(),
    });
  }
  return new ProvisionedThroughputExceededException({
    message:
      'The level of configured provisioned throughput for the table was exceeded. ' +
      'Consider increasing your provisioning level with the UpdateTable API.',
    $metadata: clientFault(),
  });
}
