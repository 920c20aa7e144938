/**
 * Looks at a request before an in-memory service answers it: returns what to answer instead (a
 * promise that never settles, for an invocation that died), or `undefined` to let it through.
 */
export type RequestInterceptor<Operation> = (operation: Operation) => Promise<unknown> | undefined;

const INTERCEPTORS = new WeakMap<object, RequestInterceptor<never>[]>();

/**
 * Adds an interceptor to an in-memory service's requests — `InMemoryDynamoDB`'s operations,
 * `InMemoryQueues`' — for the testing harness (internal to the package: not a public hook).
 *
 * @example
 * ```ts
 * interceptRequests(dynamo, (operation: DynamoOperation) => (died ? new Promise(() => {}) : undefined));
 * ```
 */
export function interceptRequests<Operation>(
  service: object,
  interceptor: RequestInterceptor<Operation>,
): void {
  INTERCEPTORS.set(service, [...(INTERCEPTORS.get(service) ?? []), interceptor]);
}

/**
 * What the interceptors of an in-memory service answer a request with, if one answers.
 *
 * @example
 * ```ts
 * const held = intercepted(this, operation); if (held) return held;
 * ```
 */
export function intercepted<Operation>(
  service: object,
  operation: Operation,
): Promise<unknown> | undefined {
  for (const interceptor of INTERCEPTORS.get(service) ?? []) {
    const answer = (interceptor as RequestInterceptor<Operation>)(operation);
    if (answer !== undefined) return answer;
  }
  return undefined;
}
