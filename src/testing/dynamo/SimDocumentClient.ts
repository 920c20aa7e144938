import type { DynamoDBDocumentClient, TranslateConfig } from '@aws-sdk/lib-dynamodb';
import { storeTranslateConfig } from '../../aws/storeTranslateConfig.js';
import { NotModelledError } from '../NotModelledError.js';
import { DOCUMENT_ROUTES, tableNamesOf } from './documentRoutes.js';
import type { ServerTime } from './ItemHolds.js';
import type { SimDynamoDB } from './SimDynamoDB.js';

/**
 * One request on its way to the simulated server: the DynamoDB operation (`'GetItem'`,
 * `'TransactWriteItems'`…), the tables it touches, and `apply`, which applies it at the server
 * and returns the wire output (or throws the server's exception); given the time it reaches the
 * server, a write follows DynamoDB's conflict rules (see `ItemHolds`).
 *
 * @example
 * ```ts
 * const operation: DynamoOperation = { name: 'GetItem', tableNames: ['inbox'], apply: () => dynamo.getItem(input) };
 * ```
 */
export interface DynamoOperation {
  readonly name: string;
  readonly tableNames: readonly string[];
  /** The request in wire form (to build an injected answer from, such as a cancellation). */
  readonly input: Readonly<Record<string, unknown>>;
  readonly apply: (at?: ServerTime) => unknown;
}

/**
 * Carries a request to the server and its answer back. The default applies at once; a
 * simulation replaces it to split a request into send / apply / respond steps, delay, drop
 * (apply without answering), or answer with an injected fault instead of applying.
 *
 * @example
 * ```ts
 * const held: Array<() => void> = [];
 * const transport: Transport = (operation) => new Promise((resolve) => held.push(() => resolve(operation.apply())));
 * ```
 */
export type Transport = (operation: DynamoOperation) => Promise<unknown>;

/**
 * Changes a request in wire form before it is sent: given the DynamoDB operation's name and the
 * request, returns the request to send.
 *
 * @example
 * ```ts
 * const rewrite: Rewrite = (operation, input) => (operation === 'PutItem' ? withoutAudit(input) : input);
 * ```
 */
export type Rewrite = (
  operation: string,
  wireInput: Record<string, unknown>,
) => Record<string, unknown>;

/**
 * Applies the operation synchronously and resolves (or rejects) with its result, without
 * timers.
 *
 * @example
 * ```ts
 * new SimDocumentClient({ dynamo, transport: applyAtOnce });
 * ```
 */
export const applyAtOnce: Transport = (operation) => {
  try {
    return Promise.resolve(operation.apply());
  } catch (error) {
    return Promise.reject(error);
  }
};

/**
 * A stand-in for lib-dynamodb's `DynamoDBDocumentClient` over a {@link SimDynamoDB}: `send`
 * takes the same command objects, marshals as `DynamoDBDocumentClient.from(client,
 * translateConfig)` would (default: as the inbox store's own client, `removeUndefinedValues`),
 * passes the request through the `transport`, and unmarshals the answer. `DynamoDBInboxStore`
 * accepts it as a document client (it has `config.translateConfig`); `documentClient` gives it
 * the SDK's type for code that wants one.
 *
 * @example
 * ```ts
 * const client = new SimDocumentClient({ dynamo: new SimDynamoDB() });
 * const store = new DynamoDBInboxStore({ tableName: 'inbox', client: client.documentClient });
 * const asTheSdkDefaults = new SimDocumentClient({ dynamo, translateConfig: {} });
 * ```
 */
export class SimDocumentClient {
  /** The translate options, as a `DynamoDBDocumentClient`'s `config` carries them. */
  readonly config: {
    readonly translateConfig: Required<
      Pick<TranslateConfig, 'marshallOptions' | 'unmarshallOptions'>
    >;
  };
  readonly #dynamo: SimDynamoDB;
  readonly #transport: Transport;
  readonly #rewrite: Rewrite | undefined;

  constructor({
    dynamo,
    transport = applyAtOnce,
    rewrite,
    translateConfig = storeTranslateConfig(),
  }: {
    dynamo: SimDynamoDB;
    transport?: Transport;
    /** Changes each request in wire form before it leaves (another release's requests, say). */
    rewrite?: Rewrite;
    /** lib-dynamodb's `translateConfig`; default the inbox store's own, `removeUndefinedValues`. */
    translateConfig?: TranslateConfig;
  }) {
    this.#dynamo = dynamo;
    this.#transport = transport;
    this.#rewrite = rewrite;
    this.config = {
      translateConfig: {
        marshallOptions: { ...translateConfig.marshallOptions },
        unmarshallOptions: { ...translateConfig.unmarshallOptions },
      },
    };
  }

  /**
   * This client typed as the SDK's document client, for the store and handlers. Only `send`
   * (with the commands listed in `documentRoutes.ts`), `config` and `destroy` exist.
   */
  get documentClient(): DynamoDBDocumentClient {
    return this as unknown as DynamoDBDocumentClient;
  }

  /** Sends a command; a command the model does not answer rejects with a `NotModelledError` naming it. */
  async send(command: object): Promise<Record<string, unknown>> {
    const route = DOCUMENT_ROUTES.find((candidate) => command instanceof candidate.command);
    if (route === undefined) {
      const name = command.constructor?.name ?? typeof command;
      const known = DOCUMENT_ROUTES.map((candidate) => candidate.command.name);
      throw new NotModelledError(name, name, known);
    }
    const { marshallOptions, unmarshallOptions } = this.config.translateConfig;
    const asBuilt = route.toWire(
      (command as { input: Record<string, unknown> }).input,
      marshallOptions,
    );
    const wireInput = this.#rewrite?.(route.operation, asBuilt) ?? asBuilt;
    const output = await this.#transport({
      name: route.operation,
      tableNames: tableNamesOf(wireInput),
      input: wireInput,
      apply: (at) => route.apply(this.#dynamo, wireInput, at),
    });
    // A transport that answers without applying (a faked success) may resolve with nothing.
    const wireOutput = (output ?? {}) as Record<string, unknown>;
    return { ...route.fromWire(wireOutput, unmarshallOptions), $metadata: { httpStatusCode: 200 } };
  }

  /** Nothing to release; here so that code written for the SDK client can call it. */
  destroy(): void {}
}
