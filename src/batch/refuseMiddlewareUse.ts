import { InvalidConfigurationError } from '../errors.js';

/**
 * Makes a batch handler refuse to serve as a middy middleware. Registered with `use()`, middy
 * reads its `before` and runs it first thing in every invocation: this `before` throws there,
 * before the base handler runs and before anything commits, with what to write instead. As the
 * base handler (`middy(processor.process)`) the property is never read. It is a plain,
 * non-enumerable, configurable function property, so code that copies or inspects the handler's
 * properties sees nothing unusual.
 *
 * @example
 * ```ts
 * const process = refuseMiddlewareUse(async (event: unknown) => ({ batchItemFailures: [] }));
 * await middy().use(process as never)(event, context); // rejects with InvalidConfigurationError
 * ```
 */
export function refuseMiddlewareUse<THandler extends object>(handler: THandler): THandler {
  Object.defineProperty(handler, 'before', {
    enumerable: false,
    configurable: true,
    writable: true,
    value: function processorIsNotAMiddleware(): never {
      throw new InvalidConfigurationError(
        'middy use()',
        handler,
        'processor.process as the base handler, not as a middleware: write ' +
          'middy(processor.process).use(injectLambdaContext(logger)); your per-message code goes ' +
          'into createBatchProcessor(handler, options), where its writes share the inbox transaction',
      );
    },
  });
  return handler;
}
