import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient, TranslateConfig } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { InvalidConfigurationError } from '../errors/configurationErrors.js';
import { type InjectedFault, InjectedFaults } from './dynamo/InjectedFaults.js';
import { ModelRequestHandler } from './dynamo/ModelRequestHandler.js';
import { SimDocumentClient, type Transport } from './dynamo/SimDocumentClient.js';
import { SimDynamoDB } from './dynamo/SimDynamoDB.js';
import { intercepted } from './requestInterceptors.js';
import { createTableInput, type TestTable } from './tableDefinitions.js';
import { type CloudFormationTemplate, templateTables } from './templateTables.js';

/**
 * Options of {@link InMemoryDynamoDB}.
 *
 * @example
 * ```ts
 * const options: InMemoryDynamoDBOptions = { now: () => clock.now() };
 * ```
 * @public
 */
export interface InMemoryDynamoDBOptions {
  /** The clock TTL's deletions read (epoch milliseconds); default `Date.now`. */
  readonly now?: () => number;
  /**
   * Settings of the SDK client `client` (say `maxAttempts: 1`): its requests always reach these
   * tables, and the SDK's retries wait in real time, as in production.
   */
  readonly clientConfig?: Omit<DynamoDBClientConfig, 'requestHandler' | 'endpoint'>;
}

/** A region and credentials for the SDK client: it never leaves the process, and signs nothing. */
const LOCAL_CLIENT_CONFIG = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'in-memory', secretAccessKey: 'in-memory' },
  httpAuthSchemeProvider: () => [{ schemeId: 'smithy.api#noAuth' }],
  httpAuthSchemes: [
    {
      schemeId: 'smithy.api#noAuth',
      identityProvider: () => async () => ({}),
      signer: { sign: async (request: unknown) => request },
    },
  ],
};

/**
 * A DynamoDB in memory for your tests, that behaves as DynamoDB does: conditions, update
 * expressions, transactions with positional cancellation reasons and `ClientRequestToken`,
 * number normalization, item and transaction size limits, DynamoDB's error classes and wording —
 * the model the project holds to DynamoDB Local and MiniStack by a conformance suite, and that
 * its deterministic simulation runs on. What it does not model (secondary indexes, `ListTables`,
 * parallel scans…) is refused with a `NotModelledError` naming it, never answered wrongly.
 * Reads are always consistent; a `ClientRequestToken` is honoured for ten minutes by the `now`
 * clock. An item past its TTL stays readable until
 * {@link InMemoryDynamoDB.deleteExpiredItems} deletes it, as DynamoDB's TTL does some time after
 * expiry — the library's own expiry rules are what a test then sees.
 *
 * Hand `documentClient` to your handler in place of the document client it builds in production,
 * `DynamoDBDocumentClient.from(new DynamoDBClient({}))`: it translates as that one does (an
 * `undefined` inside a map fails the request with the SDK's error) and answers in microseconds.
 * For another translation, `createDocumentClient(translateConfig)`: the library's store, say,
 * which leaves undefined values out (`{ marshallOptions: { removeUndefinedValues: true } }`;
 * `InboxTest` gives its store such a client). `client` is a real `DynamoDBClient` whose requests
 * go to the same tables, for code that needs one (other libraries, X-Ray's wrapper); it runs the
 * SDK's whole middleware stack, so each call costs a fraction of a millisecond.
 *
 * @example
 * ```ts
 * import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * declare const createLedger: (clients: { dynamo: DynamoDBDocumentClient }) => BatchProcessor;
 * // ---cut---
 * import { DynamoDBInboxStore } from 'sqs-inbox';
 * import { InMemoryDynamoDB } from 'sqs-inbox/testing';
 * const dynamo = new InMemoryDynamoDB()
 *   .createTable({ tableName: 'inbox', partitionKey: 'pk', timeToLiveAttribute: 'expiresAt' })
 *   .createTable({ tableName: 'accounts', partitionKey: 'accountId' });
 * const store = new DynamoDBInboxStore({
 *   tableName: 'inbox',
 *   client: dynamo.createDocumentClient({ marshallOptions: { removeUndefinedValues: true } }),
 * });
 * const ledger = createLedger({ dynamo: dynamo.documentClient }); // production: DynamoDBDocumentClient.from(new DynamoDBClient({}))
 * ```
 * @public
 */
export class InMemoryDynamoDB {
  // A closure: #now is set by the constructor, after this field.
  readonly #model = new SimDynamoDB({ now: () => this.#now() });
  readonly #now: () => number;
  readonly #clientConfig: InMemoryDynamoDBOptions['clientConfig'];
  readonly #faults = new InjectedFaults();
  readonly #transport: Transport = (operation) =>
    intercepted(this, operation) ?? this.#faults.apply(operation, this.#model);
  readonly #documentClient = this.createDocumentClient();
  #client: DynamoDBClient | undefined;

  constructor(options: InMemoryDynamoDBOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#clientConfig = options.clientConfig;
  }

  /**
   * A document client over these tables (lib-dynamodb and client-dynamodb commands) that
   * translates as `DynamoDBDocumentClient.from(client)` does with the SDK's defaults: an
   * `undefined` inside a map, list or set fails the request with the SDK's own error (a top-level
   * one is left out), numbers read back as numbers.
   */
  get documentClient(): DynamoDBDocumentClient {
    return this.#documentClient;
  }

  /**
   * Another fast document client over these tables, translating as `DynamoDBDocumentClient.from(
   * client, translateConfig)` would (lib-dynamodb's `marshallOptions` and `unmarshallOptions`);
   * without `translateConfig`, as {@link InMemoryDynamoDB.documentClient}. Its requests meet the
   * same injected faults.
   *
   * @example
   * ```ts
   * import { PutCommand } from '@aws-sdk/lib-dynamodb';
   * const client = dynamo.createDocumentClient({ marshallOptions: { removeUndefinedValues: true } });
   * await client.send(new PutCommand({ TableName: 'accounts', Item: { accountId: 'a', memo: { note: undefined } } }));
   * dynamo.item('accounts', { accountId: 'a' }) // => { accountId: 'a', memo: {} }
   * ```
   */
  createDocumentClient(translateConfig: TranslateConfig = {}): DynamoDBDocumentClient {
    return new SimDocumentClient({
      dynamo: this.#model,
      transport: this.#transport,
      translateConfig,
    }).documentClient;
  }

  /** A `DynamoDBClient` over these tables, built on first use. */
  get client(): DynamoDBClient {
    this.#client ??= new DynamoDBClient({
      ...LOCAL_CLIENT_CONFIG,
      ...this.#clientConfig,
      requestHandler: new ModelRequestHandler({ dynamo: this.#model, transport: this.#transport }),
    } as DynamoDBClientConfig);
    return this.#client;
  }

  /**
   * Creates a table, ACTIVE at once (with TTL on its attribute, if given); returns this, so
   * that calls chain.
   *
   * @example
   * ```ts
   * dynamo.createTable({ tableName: 'orders', partitionKey: 'orderId', sortKey: { name: 'version', type: 'N' } });
   * ```
   */
  createTable(table: TestTable): this {
    this.#model.createTable(createTableInput(table));
    if (table.timeToLiveAttribute !== undefined)
      this.#enableTimeToLive(table.tableName, table.timeToLiveAttribute);
    return this;
  }

  /**
   * Creates every DynamoDB table of a synthesized CDK template (key schema and TTL; secondary
   * indexes left out), each named by its `TableName` when the template fixes one, else by its
   * logical id. Returns the table names by logical id.
   *
   * @example
   * ```ts
   * import { Template } from 'aws-cdk-lib/assertions';
   * const names = dynamo.createTablesFromTemplate(Template.fromStack(stack).toJSON());
   * ```
   */
  createTablesFromTemplate(template: CloudFormationTemplate): Readonly<Record<string, string>> {
    const names: Record<string, string> = {};
    for (const table of templateTables(template)) {
      this.#model.createTable(table.input);
      const tableName = table.input.TableName ?? table.logicalId;
      if (table.timeToLiveAttribute !== undefined)
        this.#enableTimeToLive(tableName, table.timeToLiveAttribute);
      names[table.logicalId] = tableName;
    }
    return names;
  }

  /**
   * Every item of a table, as native values (numbers as numbers, sets as `Set`s), in the order
   * they were written.
   *
   * @example
   * ```ts
   * import { expect } from 'vitest';
   * expect(dynamo.items('accounts')).toEqual([{ accountId: 'acc-1', balanceCents: 1250 }]);
   * ```
   */
  items(tableName: string): Array<Record<string, unknown>> {
    return this.#model.tableItems(tableName).map((item) => unmarshall(item));
  }

  /**
   * The item of a key, as native values, or `undefined`.
   *
   * @example
   * ```ts
   * dynamo.item('accounts', { accountId: 'acc-1' })?.balanceCents // => 1250
   * ```
   */
  item(tableName: string, key: Record<string, unknown>): Record<string, unknown> | undefined {
    const { Item } = this.#model.getItem({
      TableName: tableName,
      Key: marshall(key, { removeUndefinedValues: true }),
    });
    return Item === undefined ? undefined : unmarshall(Item);
  }

  /**
   * Deletes what DynamoDB's TTL may delete now (by the `now` clock): the items of TTL-enabled
   * tables whose TTL attribute is an epoch-seconds number in the past (within five years).
   * Returns how many it deleted. DynamoDB does this some time after expiry, so a test calls it
   * when it wants to see the table after the sweep.
   *
   * @example
   * ```ts
   * await clock.advanceMillis(30 * 24 * 3_600_000); dynamo.deleteExpiredItems();
   * ```
   */
  deleteExpiredItems(): number {
    const nowEpochSeconds = Math.floor(this.#now() / 1000);
    let deleted = 0;
    for (const tableName of this.#model.tableNames()) {
      for (const item of this.#model.expiredItems(tableName, nowEpochSeconds)) {
        const key = this.#model.keyOf(tableName, item);
        if (this.#model.deleteExpired(tableName, key, nowEpochSeconds)) deleted++;
      }
    }
    return deleted;
  }

  /**
   * Makes the next matching requests fail as DynamoDB sometimes does — a transaction conflict,
   * throttling, a lost answer (applied, then the SDK's `TimeoutError`), a timeout (not applied)
   * — for a test of what the library and your handler do then. Through `client`, the SDK's own
   * retries apply, as in production; through `documentClient`, the library's retries do.
   * Returns this, so that calls chain.
   *
   * @example
   * ```ts
   * dynamo.injectFault({ fault: DynamoFault.Conflict, operation: 'TransactWriteItems', times: 2 });
   * ```
   */
  injectFault(fault: InjectedFault): this {
    this.#faults.add(fault);
    return this;
  }

  /** How many injected faults have not met their requests yet. */
  get pendingFaults(): number {
    return this.#faults.pending;
  }

  #enableTimeToLive(tableName: string, attributeName: string): void {
    if (attributeName === '')
      throw new InvalidConfigurationError('timeToLiveAttribute', attributeName, 'a name');
    this.#model.updateTimeToLive({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: attributeName, Enabled: true },
    });
  }
}
