import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { MessageHandler, ParsedMessage } from 'sqs-inbox';

/** The body type a schema produces. */
export type Body<TSchema extends StandardSchemaV1> = StandardSchemaV1.InferOutput<TSchema>;

/**
 * What makes one reference consumer: its event schema, its dedup key and its per-message
 * handler, built from its business tables (`inboxConfigFromEnvironment().table`) and a client
 * for its reads. The Lambda entry (`handler.ts`) and the local runner of `npm start` both build
 * the consumer from this, so they cannot drift apart.
 */
export interface ConsumerDefinition<TSchema extends StandardSchemaV1> {
  readonly schema: TSchema;
  readonly key: (message: ParsedMessage<Body<TSchema>>) => string;
  /** `destination(name)` is an outbox destination's address, undefined where there is none. */
  readonly handler: (
    table: (name: string) => string,
    client: DynamoDBDocumentClient,
    destination?: (name: string) => string | undefined,
  ) => MessageHandler<Body<TSchema>>;
}
