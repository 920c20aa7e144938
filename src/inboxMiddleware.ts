import type { MiddlewareObj, Request } from '@middy/core';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createBatchProcessor } from './createBatchProcessor.js';
import { InvalidConfigurationError } from './errors.js';
import type { InboxOptions, MessageHandler } from './types.js';

/**
 * Options of {@link inboxMiddleware}: the inbox options plus the per-message `handler`.
 *
 * @example
 * ```ts
 * const options: InboxMiddlewareOptions = { store, consumer: 'ledger', handler: async () => {} };
 * ```
 */
export interface InboxMiddlewareOptions<
  TSchema extends StandardSchemaV1 = StandardSchemaV1<unknown>,
> extends InboxOptions<TSchema> {
  /** Runs once per message; its writes go through `tx`. */
  readonly handler: MessageHandler<StandardSchemaV1.InferOutput<TSchema>>;
}

/** What the middleware keeps in middy's per-request `internal` between its hooks. */
type InboxInternal = { sqsInboxBatchResponse?: SQSBatchResponse };
type InboxRequest = Request<SQSEvent, SQSBatchResponse, Error, Context, InboxInternal>;

/**
 * The middy middleware. It processes the batch in `before` and sets the `SQSBatchResponse`
 * in `after`, so it replaces the base handler: build it as `middy<SQSEvent, SQSBatchResponse>()`
 * without `.handler()`. Register it last (`.use()` order): `before` hooks registered earlier
 * (logger context, metrics) run first, and their `after` hooks run after it and see the
 * response. Options are validated when the middleware is created.
 *
 * @example
 * ```ts
 * export const handler = middy<SQSEvent, SQSBatchResponse>().use(
 *   inboxMiddleware({
 *     store, consumer: 'ledger', schema: PaymentCaptured, key: ({ body }) => body.eventId,
 *     handler: async ({ body }, tx) => {
 *       tx.update({ TableName: 'accounts', Key: { accountId: body.accountId },
 *         UpdateExpression: 'ADD balanceCents :a', ExpressionAttributeValues: { ':a': body.amountCents } });
 *     },
 *   }),
 * );
 * ```
 */
export function inboxMiddleware<TSchema extends StandardSchemaV1 = StandardSchemaV1<unknown>>(
  options: InboxMiddlewareOptions<TSchema>,
): MiddlewareObj<SQSEvent, SQSBatchResponse, Error, Context, InboxInternal> {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidConfigurationError(
      'options',
      options,
      'an object with store, consumer and handler',
    );
  }
  const { handler, ...inboxOptions } = options;
  const processor = createBatchProcessor<TSchema>(handler, inboxOptions);

  const inboxMiddlewareBefore = async (request: InboxRequest) => {
    request.internal.sqsInboxBatchResponse = await processor.process(request.event);
  };
  const inboxMiddlewareAfter = async (request: InboxRequest) => {
    if (request.response !== undefined && request.response !== null) {
      throw new InvalidConfigurationError(
        'middy handler',
        request.response,
        'no base handler: inboxMiddleware produces the batch response; remove .handler(...)',
      );
    }
    request.response = request.internal.sqsInboxBatchResponse ?? { batchItemFailures: [] };
  };
  return { before: inboxMiddlewareBefore, after: inboxMiddlewareAfter };
}
