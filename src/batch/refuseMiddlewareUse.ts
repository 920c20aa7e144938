import { InvalidConfigurationError } from '../errors.js';

const MIDDY_HOOKS = ['before', 'after', 'onError'] as const;

/**
 * Makes a batch handler refuse to be registered as a middy middleware. middy's `use()` reads a
 * middleware's `before`, `after` and `onError` when it is called, so these getters throw right
 * there, at creation: `middy(yourHandler).use(processor.process)` would otherwise run your base
 * handler outside the inbox, and middy would treat the batch response as an early return.
 * The hooks are non-enumerable, so nothing else sees them.
 *
 * @example
 * ```ts
 * const process = refuseMiddlewareUse(async (event: unknown) => ({ batchItemFailures: [] }));
 * middy().use(process as never); // throws InvalidConfigurationError
 * ```
 */
export function refuseMiddlewareUse<THandler extends object>(handler: THandler): THandler {
  for (const hook of MIDDY_HOOKS) {
    Object.defineProperty(handler, hook, {
      enumerable: false,
      get: () => {
        throw new InvalidConfigurationError(
          'middy .use()',
          'processor.process',
          'the processor as the base handler, not a middleware: ' +
            'middy(processor.process).use(injectLambdaContext(logger)); your per-message code goes ' +
            'into createBatchProcessor(handler, options), where its writes share the inbox transaction',
        );
      },
    });
  }
  return handler;
}
