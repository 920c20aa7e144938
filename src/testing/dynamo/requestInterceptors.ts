import type { DynamoOperation } from './SimDocumentClient.js';

/**
 * Looks at a request before the in-memory DynamoDB applies it: returns what to answer instead
 * (a promise that never settles, for an invocation that died), or `undefined` to let it through.
 */
export type RequestInterceptor = (operation: DynamoOperation) => Promise<unknown> | undefined;

const INTERCEPTORS = new WeakMap<object, RequestInterceptor[]>();

/**
 * Adds an interceptor to an in-memory DynamoDB's requests (the testing harness's, internal to
 * the package: not a public hook).
 *
 * @example
 * ```ts
 * interceptRequests(dynamo, (operation) => (died ? new Promise(() => {}) : undefined));
 * ```
 */
export function interceptRequests(dynamo: object, interceptor: RequestInterceptor): void {
  INTERCEPTORS.set(dynamo, [...(INTERCEPTORS.get(dynamo) ?? []), interceptor]);
}

/**
 * What the interceptors of an in-memory DynamoDB answer a request with, if one answers.
 *
 * @example
 * ```ts
 * const held = intercepted(this, operation); if (held) return held;
 * ```
 */
export function intercepted(
  dynamo: object,
  operation: DynamoOperation,
): Promise<unknown> | undefined {
  for (const interceptor of INTERCEPTORS.get(dynamo) ?? []) {
    const answer = interceptor(operation);
    if (answer !== undefined) return answer;
  }
  return undefined;
}
