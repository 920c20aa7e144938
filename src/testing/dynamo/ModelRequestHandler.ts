import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { NotModelledError } from '../NotModelledError.js';
import { type WireRequest, wireAnswer, wireBody, wireOperation } from '../wireRequest.js';
import { tableNamesOf } from './documentRoutes.js';
import { MODEL_OPERATIONS } from './modelOperations.js';
import { applyAtOnce, type Transport } from './SimDocumentClient.js';
import type { SimDynamoDB } from './SimDynamoDB.js';
import { bytesFromWire, bytesToWire } from './wireValues.js';

/** The members of an SDK exception that are not part of DynamoDB's error document. */
const NOT_ON_THE_WIRE = new Set(['name', 'message', '$fault', '$metadata', '$response', 'stack']);

/**
 * An SDK request handler (`requestHandler` of a `DynamoDBClient`) that answers from the model
 * instead of the network: it reads the operation from `X-Amz-Target` and the request from the
 * JSON body, applies it through the `transport` (which may delay it, drop its answer or answer
 * with a fault), and writes DynamoDB's JSON answer or error document back. The SDK itself then
 * parses the answer and builds its exceptions, so the client behaves as it does against
 * DynamoDB — middleware, retries, `DynamoDBDocumentClient.from` and all. An operation the model
 * does not answer is refused with a `NotModelledError` naming it and the ones it answers.
 *
 * @example
 * ```ts
 * const client = new DynamoDBClient({ requestHandler: new ModelRequestHandler({ dynamo }), region: 'us-east-1' });
 * ```
 */
export class ModelRequestHandler {
  readonly #dynamo: SimDynamoDB;
  readonly #transport: Transport;

  constructor({ dynamo, transport = applyAtOnce }: { dynamo: SimDynamoDB; transport?: Transport }) {
    this.#dynamo = dynamo;
    this.#transport = transport;
  }

  /** Answers one request of the SDK's DynamoDB JSON protocol. */
  async handle(request: WireRequest) {
    const operation = wireOperation(request.headers);
    const apply = MODEL_OPERATIONS[operation];
    if (apply === undefined)
      throw new NotModelledError(operation, operation, Object.keys(MODEL_OPERATIONS));
    const input = bytesFromWire(wireBody(request)) as Record<string, unknown>;
    try {
      const output = await this.#transport({
        name: operation,
        tableNames: tableNamesOf(input),
        input,
        apply: (at) => apply(this.#dynamo, input, at),
      });
      return wireAnswer(200, bytesToWire(output ?? {}));
    } catch (error) {
      if (!(error instanceof DynamoDBServiceException)) throw error;
      return wireAnswer(error.$fault === 'server' ? 500 : 400, errorDocument(error));
    }
  }

  /** Part of the SDK's handler contract: the model has no HTTP settings. */
  updateHttpClientConfig(): void {}

  /** Part of the SDK's handler contract: the model has no HTTP settings. */
  httpHandlerConfigs(): Record<string, never> {
    return {};
  }

  /** Part of the SDK's handler contract: nothing to release. */
  destroy(): void {}
}

/** DynamoDB's error document: the shape in `__type`, the message, and the modelled members. */
function errorDocument(error: DynamoDBServiceException): Record<string, unknown> {
  const members = Object.entries(error).filter(([name]) => !NOT_ON_THE_WIRE.has(name));
  return bytesToWire({
    __type: `com.amazonaws.dynamodb.v20120810#${error.name}`,
    message: error.message,
    Message: error.message,
    ...Object.fromEntries(members),
  }) as Record<string, unknown>;
}
