import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { DynamoDBInboxStore } from '../../aws/DynamoDBInboxStore.js';
import { storeTranslateConfig } from '../../aws/storeTranslateConfig.js';
import type { BatchProcessor } from '../../batch/createBatchProcessor.js';
import { InboxAttribute, OutboxAttribute } from '../../constants/values.js';
import type { InboxEntry } from '../../core/inboxEntry.js';
import { inboxPk } from '../../core/inboxEntry.js';
import type { InboxLogger } from '../../core/types.js';
import {
  type InboxEnvironmentConfig,
  inboxConfigFromEnvironment,
} from '../../environment/inboxConfigFromEnvironment.js';
import { type LambdaContextOptions, lambdaContext } from '../events/lambdaContext.js';
import { InMemoryDynamoDB } from '../InMemoryDynamoDB.js';
import { InMemoryQueues, type QueuedMessage } from '../sqs/InMemoryQueues.js';
import { type BatchRun, batchRun, type CrashPoint, endedRun } from './BatchRun.js';
import { harnessEnvironment, harnessRetry } from './harnessEnvironment.js';
import type { InboxTestOptions, InboxTestProcessorOptions } from './InboxTestOptions.js';
import { Invocations } from './Invocations.js';
import { RecordingTracer } from './RecordingTracer.js';
import { TestClock } from './TestClock.js';

const INBOX_TABLE = 'inbox';
const OUTBOX_TABLE = 'outbox';
const CONSTRUCT_TTL_SECONDS = 23 * 86_400;

/**
 * Everything a handler test needs, in memory: the inbox table and your tables in an
 * {@link InMemoryDynamoDB}, a dead-letter queue in {@link InMemoryQueues}, a {@link TestClock},
 * and `options` to spread into your processor's. `run` delivers a batch and tells what
 * happened to each record — its status, error, and the steps it ran and replayed — and can
 * make the invocation die after a step's effect, as a crashed Lambda does.
 *
 * @example
 * ```ts
 * import { expect } from 'vitest';
 * const inbox = new InboxTest({ consumer: 'ledger', tables: [{ tableName: 'accounts', partitionKey: 'accountId' }] });
 * const processor = createBatchProcessor(handler, {
 *   ...inbox.options, schema: PaymentSchema, key: ({ body }) => body.eventId,
 * });
 * const payment: Payment = {
 *   eventId: 'e-1', accountId: 'a', paymentId: 'p-1', amountCents: 5, currency: 'EUR',
 * };
 * const run = await inbox.run(processor, [sqsRecord(payment)]);
 * expect(run.records[0]?.status).toBe('processed');
 * ```
 * @public
 */
export class InboxTest {
  /** The clock of the run: the processor's runtime, the tables' TTL, the queues' send times. */
  readonly clock: TestClock;
  /**
   * The inbox table (`inbox`), the outbox table (`outbox`) if asked, and your tables. Its
   * `documentClient` translates as a handler's `DynamoDBDocumentClient.from(new DynamoDBClient({}))`;
   * the library's store gets a client translating as its own default does (undefined values left
   * out of `tx` writes).
   */
  readonly dynamo: InMemoryDynamoDB;
  /**
   * The queues the library sends to — the dead-letter queue — and those `run` delivers records
   * from, whose visibility the processor's `retry` changes.
   */
  readonly queues = new InMemoryQueues({ now: () => this.clock.now() });
  /** The dead-letter queue the library sends to. */
  readonly deadLetterQueueUrl: string;
  /** What the library logged, line by line (nothing reaches the console). */
  readonly logs: Array<{
    readonly level: string;
    readonly message: string;
    readonly extra?: object;
  }> = [];
  readonly #consumer: string;
  /** The store's client: as the store's own default, `removeUndefinedValues`. */
  readonly #storeClient: DynamoDBDocumentClient;
  readonly #store: DynamoDBInboxStore;
  readonly #tracer = new RecordingTracer();
  readonly #invocations: Invocations;
  readonly #options: InboxTestOptions;

  constructor(options: InboxTestOptions = {}) {
    this.#options = options;
    this.clock = options.clock ?? new TestClock();
    this.#consumer = options.consumer ?? 'test';
    this.dynamo = new InMemoryDynamoDB({ now: () => this.clock.now() }).createTable({
      tableName: INBOX_TABLE,
      partitionKey: InboxAttribute.PartitionKey,
      timeToLiveAttribute: InboxAttribute.ExpiresAt,
    });
    if (options.outbox)
      this.dynamo.createTable({
        tableName: OUTBOX_TABLE,
        partitionKey: OutboxAttribute.PartitionKey,
        timeToLiveAttribute: OutboxAttribute.ExpiresAt,
      });
    for (const table of options.tables ?? []) this.dynamo.createTable(table);
    this.deadLetterQueueUrl = this.queues.createQueue(`${this.#consumer}-dlq`);
    this.#storeClient = this.dynamo.createDocumentClient(storeTranslateConfig());
    this.#store = new DynamoDBInboxStore({
      tableName: INBOX_TABLE,
      client: this.#storeClient,
      ...(options.outbox ? { outbox: { tableName: OUTBOX_TABLE } } : {}),
    });
    this.#invocations = new Invocations(this.dynamo, this.queues, INBOX_TABLE);
  }

  /**
   * The inbox options to spread into your processor's: store, consumer, TTL, dead-letter queue,
   * `retry` as the construct sets it (see {@link InboxTestOptions.retry}), the clock as runtime, and a logger and tracer that the harness reads (keep its tracer in
   * your `observability`: without it `run` cannot tell the steps, and throws).
   */
  get options(): InboxTestProcessorOptions {
    const retry = harnessRetry(this.#options.retry, this.queues.client);
    return {
      store: this.#store,
      consumer: this.#consumer,
      ttlSeconds: this.#options.ttlSeconds ?? CONSTRUCT_TTL_SECONDS,
      deadLetter: {
        queueUrl: this.deadLetterQueueUrl,
        maxReceiveCount: this.#options.maxReceiveCount ?? 5,
        client: this.queues.client,
      },
      ...(retry === undefined ? {} : { retry }),
      runtime: this.#invocations.runtime(this.clock),
      observability: { logger: this.#logger(), tracer: this.#tracer, metrics: false as const },
    };
  }

  /**
   * The environment the `InboxConsumer` construct would give the function, naming this
   * harness's tables and queue, with its defaults (the `INBOX_RETRY_*` of `retry` too): for a handler module that reads its tables with
   * `inboxConfigFromEnvironment` (see {@link InboxTest.inboxConfig}).
   *
   * @example
   * ```ts
   * inbox.environment.INBOX_BUSINESS_TABLE_accounts // => 'accounts'
   * ```
   */
  get environment(): Readonly<Record<string, string>> {
    return harnessEnvironment(this.options, this.#options, {
      inbox: INBOX_TABLE,
      outbox: OUTBOX_TABLE,
    });
  }

  /**
   * What `inboxConfigFromEnvironment()` gives a function deployed with {@link
   * InboxTest.environment}, over this harness's clients — its `options` also carry the harness's
   * runtime and observability, so `run` can tell the steps. Hand it to a handler module written as
   * a factory of its config.
   *
   * @example
   * ```ts
   * // ledger.ts: the handler module, a factory of its config
   * export const createLedger = (config = inboxConfigFromEnvironment()) => {
   *   const accounts = config.table('accounts');
   *   return createBatchProcessor(async ({ body }, tx) => {
   *     tx.update({ TableName: accounts, Key: { accountId: body.accountId },
   *       UpdateExpression: 'ADD balanceCents :a', ExpressionAttributeValues: { ':a': body.amountCents } });
   *   }, { ...config.options, schema: PaymentSchema, key: ({ body }) => body.eventId });
   * };
   * // ledger.test.ts
   * const processor = createLedger(inbox.inboxConfig());
   * ```
   */
  inboxConfig(): InboxEnvironmentConfig {
    const config = inboxConfigFromEnvironment({
      env: this.environment,
      dynamoDBClient: this.#storeClient,
      sqsClient: this.queues.client,
    });
    // Its store is the function's own, over this harness's tables; the runtime and observability
    // are the harness's, which the environment does not carry.
    const { runtime, observability } = this.options;
    return {
      ...config,
      options: { ...config.options, runtime, observability } as InboxEnvironmentConfig['options'],
    };
  }

  /**
   * A Lambda context (see `lambdaContext`) whose remaining time counts down by this harness's
   * clock, for `run`: the batch's deadline and a step's lease then follow the test clock, as
   * they follow the invocation's time in Lambda.
   *
   * @example
   * ```ts
   * import type { SQSRecord } from 'aws-lambda';
   * declare const records: SQSRecord[];
   * // ---cut---
   * const context = inbox.context({ remainingMillis: 10_000 });
   * const run = await inbox.run(processor, records, { context });
   * ```
   */
  context(options: Omit<LambdaContextOptions, 'now'> = {}): Context {
    return lambdaContext({ ...options, now: () => this.clock.now() });
  }

  /**
   * Delivers a batch to the processor as Lambda would, and tells what happened to each record.
   * Without a `context` the batch has no deadline (give one from {@link InboxTest.context}).
   * With `crash`, the invocation dies at that point (its requests to the tables and the queues,
   * its waits and its timers stop; other code of it runs on until it next sends a request or
   * waits; its lease stays), and the run comes back with `crashed` set and no outcomes; a batch
   * that never reaches the crash point throws an `InvalidConfigurationError` naming the steps it
   * ran. A record that failed on something the in-memory DynamoDB does not model throws its
   * `NotModelledError` here. A processor whose `observability` has a tracer other than the
   * harness's throws an `InvalidConfigurationError`: `run` could not tell the steps. The records
   * are delivered from their queues in {@link InboxTest.queues} first, so the processor's `retry`
   * changes their visibility there; each record's `retryDelaySeconds` tells the change it got.
   *
   * @example
   * ```ts
   * await inbox.run(processor, [record], { crash: { afterStep: 'charge' } });
   * ```
   */
  async run(
    processor: BatchProcessor,
    records: readonly SQSRecord[] | SQSEvent,
    options: { readonly context?: Context; readonly crash?: CrashPoint } = {},
  ): Promise<BatchRun> {
    const event: SQSEvent = Array.isArray(records)
      ? { Records: [...records] }
      : (records as SQSEvent);
    const consumerSpansBefore = this.#tracer.consumerSpans;
    this.queues.deliver(event.Records);
    const changesBefore = this.queues.visibilityChanges().length;
    const ended = await this.#invocations.invoke(options.crash, () =>
      processor.processRecords(event, options.context),
    );
    if (ended === 'crashed') return batchRun([], this.#tracer, true);
    const changes = this.queues.visibilityChanges().slice(changesBefore);
    return endedRun(ended, this.#tracer, {
      crash: options.crash,
      consumerSpansBefore,
      retryDelaysSeconds: event.Records.map(
        (record) =>
          changes.findLast((change) => change.receiptHandle === record.receiptHandle)
            ?.visibilityTimeoutSeconds,
      ),
    });
  }

  /**
   * A key's inbox entry as the table holds it (status, attempts, steps, lease…), or undefined.
   *
   * @example
   * ```ts
   * import { expect } from 'vitest';
   * expect(await inbox.entry('e-1')).toMatchObject({ status: 'COMPLETED' });
   * ```
   */
  entry(key: string): Promise<InboxEntry | undefined> {
    return this.#store.find(inboxPk(this.#consumer, key));
  }

  /** The messages the library sent to the dead-letter queue, oldest first. */
  deadLetters(): readonly QueuedMessage[] {
    return this.queues.messages(this.deadLetterQueueUrl);
  }

  /** The outbox table's items (one per committed message that published), as native values. */
  outboxItems(): Array<Record<string, unknown>> {
    return this.#options.outbox ? this.dynamo.items(OUTBOX_TABLE) : [];
  }

  #logger(): InboxLogger {
    const at =
      (level: string) =>
      (message: string, ...extra: Array<Record<string, unknown>>) => {
        this.logs.push({ level, message, ...(extra[0] ? { extra: extra[0] } : {}) });
      };
    return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  }
}
