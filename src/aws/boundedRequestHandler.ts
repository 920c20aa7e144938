/**
 * The HTTP settings of every AWS client the library builds itself. The SDK waits forever on a
 * stalled socket by default; these bounds turn a stall into a retryable `TimeoutError`, so a
 * commit whose answer was lost is later seen as its own duplicate, and a relay or dead-letter
 * send that hangs fails and is retried instead of holding the batch until the function times out.
 *
 * @example
 * ```ts
 * const sqs = new SQSClient({ requestHandler: BOUNDED_REQUEST_HANDLER });
 * ```
 */
export const BOUNDED_REQUEST_HANDLER = {
  connectionTimeout: 3_000,
  requestTimeout: 10_000,
  throwOnRequestTimeout: true,
} as const;
