import type { Context, DynamoDBBatchResponse } from 'aws-lambda';
import { createOutboxRelay, type OutboxRelayProcessor } from './createOutboxRelay.js';
import { outboxRelayFromEnvironment } from './outboxRelayFromEnvironment.js';

let relay: OutboxRelayProcessor | undefined;

/**
 * The relay function the construct deploys (the library's own entry point): the relay built
 * from the environment on the first invocation, not at import, then kept for the container.
 *
 * @example
 * ```ts
 * // `npm run build` bundles this file into dist/relay-function, the relay function the
 * // construct deploys; a function of your own can do the same with the pieces it is made of:
 * export const handler = createOutboxRelay(outboxRelayFromEnvironment()).process;
 * ```
 */
export function handler(event: unknown, context: Context): Promise<DynamoDBBatchResponse> {
  relay ??= createOutboxRelay(outboxRelayFromEnvironment());
  return relay.process(event, context);
}
