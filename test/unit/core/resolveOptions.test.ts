import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DeadLetterPublisher } from '../../../src/aws/DeadLetterPublisher.js';
import { DEFAULT_TTL_SECONDS } from '../../../src/constants/values.js';
import { resolveOptions as resolveWith } from '../../../src/core/resolveOptions.js';
import { InvalidConfigurationError } from '../../../src/errors.js';
import { createBatchProcessor, DynamoDBInboxStore } from '../../../src/index.js';

const resolveOptions = (options: Parameters<typeof resolveWith>[0]) =>
  resolveWith(options, (url, client) => new DeadLetterPublisher(url, client));

const store = new DynamoDBInboxStore({ tableName: 'inbox' });
const valid = { store, consumer: 'ledger', key: () => 'k' };

/** The valid options with `value` at `path` (`performance.concurrency`). */
function withOption(path: string, value: unknown): never {
  const [group, name] = path.split('.') as [string, string | undefined];
  if (name === undefined) return { ...valid, [group]: value } as never;
  const queueUrl =
    group === 'deadLetter' ? { queueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/dlq' } : {};
  return { ...valid, [group]: { ...queueUrl, [name]: value } } as never;
}

describe('resolveOptions', () => {
  it('takes observability.metrics false for no metrics at all', () => {
    expect(resolveOptions(withOption('observability.metrics', false)).metrics).toBeUndefined();
  });

  it('fills in the documented defaults', () => {
    const resolved = resolveOptions(valid);

    expect(resolved).toMatchObject({
      ttlSeconds: DEFAULT_TTL_SECONDS,
      concurrency: 100,
      precheck: 'concurrent',
      transactionAttempts: 3,
      deadLetter: undefined,
    });
    expect(DEFAULT_TTL_SECONDS).toBe(23 * 86_400);
    expect(resolved.parser).toBeUndefined();
    expect(resolved.sources).toEqual(['sqs']);
  });

  it('keeps the default concurrency within the SDK’s 50 sockets when the store was given a client', () => {
    const given = new DynamoDBInboxStore({ tableName: 'inbox', client: new DynamoDBClient({}) });

    expect(resolveOptions({ ...valid, store: given }).concurrency).toBe(50);
    expect(
      resolveOptions({ ...valid, store: given, performance: { concurrency: 200 } }).concurrency,
    ).toBe(200);
  });

  it.each([
    { precheck: undefined, mode: 'concurrent' },
    { precheck: 'concurrent', mode: 'concurrent' },
    { precheck: 'before', mode: 'before' },
    { precheck: 'off', mode: 'off' },
  ] as const)('reads precheck $precheck as the $mode mode', ({ precheck, mode }) => {
    expect(resolveOptions({ ...valid, performance: { precheck } }).precheck).toBe(mode);
  });

  it('reads each group into the setting the engine uses', () => {
    const logger = { debug() {}, info() {}, warn() {}, error() {} };
    const resolved = resolveOptions({
      ...valid,
      ttlSeconds: 3_600,
      deadLetter: { queueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/dlq', maxReceiveCount: 4 },
      reliability: { transactionAttempts: 5, leaseMillis: 2_000, deadlineMarginMillis: 300 },
      observability: { logger, logKeys: true },
      performance: { concurrency: 7, precheck: 'before', coalesce: true },
      runtime: { now: () => 42 },
    });

    expect(resolved).toMatchObject({
      ttlSeconds: 3_600,
      maxReceiveCount: 4,
      transactionAttempts: 5,
      leaseMillis: 2_000,
      deadlineMarginMillis: 300,
      logKeys: true,
      concurrency: 7,
      precheck: 'before',
      coalesce: true,
    });
    expect(resolved.deadLetter).toBeInstanceOf(DeadLetterPublisher);
    expect(resolved.runtime.now()).toBe(42);
  });

  it.each([
    ['deadLetterQueueUrl', 'deadLetter.queueUrl'],
    ['maxReceiveCount', 'deadLetter.maxReceiveCount'],
    ['sqsClient', 'deadLetter.client'],
    ['transactionAttempts', 'reliability.transactionAttempts'],
    ['leaseMillis', 'reliability.leaseMillis'],
    ['deadlineMarginMillis', 'reliability.deadlineMarginMillis'],
    ['logger', 'observability.logger'],
    ['metrics', 'observability.metrics'],
    ['logKeys', 'observability.logKeys'],
    ['concurrency', 'performance.concurrency'],
    ['precheck', 'performance.precheck'],
    ['coalesce', 'performance.coalesce'],
    ['now', 'runtime.now'],
  ])('refuses the 0.1.0 option %s, naming where it went (%s)', (old, now) => {
    const attempt = () => resolveOptions({ ...valid, [old]: 1 } as never);

    expect(attempt).toThrow(InvalidConfigurationError);
    expect(attempt).toThrow(`"${old}"`);
    expect(attempt).toThrow(`under its new name, ${now}`);
  });

  it.each([
    { option: 'ttlSecond', value: 60, fix: /known options: store, consumer, key, ttlSeconds/ },
    { option: 'consumer', value: 'led#ger', fix: /no "#"/ },
    { option: 'consumer', value: '', fix: /1-128 characters/ },
    { option: 'ttlSeconds', value: 59, fix: /integer from 60 to/ },
    { option: 'ttlSeconds', value: 3600.5, fix: /integer/ },
    { option: 'performance', value: 5, fix: /an object such as \{ concurrency \}/ },
    { option: 'performance.concurrency', value: 0, fix: /integer from 1 to 1000/ },
    { option: 'performance.concurrencey', value: 4, fix: /concurrency, precheck, coalesce/ },
    { option: 'reliability.transactionAttempts', value: 11, fix: /integer from 1 to 10/ },
    { option: 'reliability.leaseMillis', value: 999, fix: /integer from 1000 to 43200000/ },
    { option: 'reliability.leaseMillis', value: 1500.5, fix: /integer/ },
    { option: 'deadLetter.queueUrl', value: 'orders-dlq', fix: /SQS queue URL/ },
    { option: 'deadLetter.maxReceiveCount', value: 0, fix: /integer from/ },
    { option: 'schema', value: { parse: () => 1 }, fix: /Standard Schema v1/ },
    { option: 'key', value: 'eventId', fix: /a function/ },
    { option: 'performance.precheck', value: 'yes', fix: /'concurrent', 'before', 'off'/ },
    { option: 'performance.precheck', value: false, fix: /'concurrent', 'before', 'off'/ },
    { option: 'observability.logger', value: { info: () => {} }, fix: /debug, info, warn, error/ },
    { option: 'observability.metrics', value: {}, fix: /addMetric/ },
    { option: 'observability.metrics', value: true, fix: /addMetric/ },
    {
      option: 'store',
      value: { tableName: 'inbox' },
      fix: /find, commit, claim, journal, heartbeat, release/,
    },
    { option: 'store', value: undefined, fix: /DynamoDBInboxStore/ },
  ])(
    'rejects $option = $value with an error naming the value and the fix',
    ({ option, value, fix }) => {
      const attempt = () => resolveOptions(withOption(option, value));

      expect(attempt).toThrow(InvalidConfigurationError);
      expect(attempt).toThrow(fix);
      try {
        attempt();
      } catch (error) {
        expect(error).toMatchObject({ option });
        expect((error as Error).message).toContain(`"${option}"`);
      }
    },
  );

  it('refuses coalesce with a store that cannot share a transaction, naming the store it needs', () => {
    const sharesNothing = Object.assign(Object.create(store), { commitPrepared: undefined });

    expect(() =>
      resolveOptions({ ...valid, store: sharesNothing, performance: { coalesce: true } }),
    ).toThrow(/coalesce.*false, or a DynamoDBInboxStore as store/s);
    expect(resolveOptions({ ...valid, performance: { coalesce: true } }).coalesce).toBe(true);
  });

  it('rejects a dead-letter client or maxReceiveCount given without the queue URL', () => {
    const withoutUrl = [{ client: new SQSClient({}) }, { maxReceiveCount: 5 }];
    for (const deadLetter of withoutUrl) {
      expect(() => resolveOptions({ ...valid, deadLetter } as never)).toThrow(
        /"deadLetter.queueUrl".*SQS queue URL/,
      );
    }
  });

  it('refuses a missing key when a declared source carries no upstream id, naming the source and the fix', () => {
    const { key: _key, ...withoutKey } = valid;

    expect(() => resolveOptions({ ...withoutKey, sources: ['sns', 'sns-raw'] })).toThrow(
      /"key".*e\.g\. \(\{ body \}\) => body\.paymentId: the declared source sns-raw carries no upstream id/,
    );
    expect(() => resolveOptions(withoutKey)).toThrow(
      /the declared source sqs carries no upstream id/,
    );
  });

  it('accepts a missing key when every declared source has an upstream id', () => {
    const { key: _key, ...withoutKey } = valid;

    const resolved = resolveOptions({
      ...withoutKey,
      sources: ['sns', 'eventbridge', 's3', 'sns'],
    });

    expect(resolved.key).toBeUndefined();
    expect(resolved.sources).toEqual(['sns', 'eventbridge', 's3']);
  });

  it.each([[[]], [['kafka']], ['sns']])(
    'refuses sources %j, naming the values there are',
    (sources) => {
      expect(() => resolveOptions({ ...valid, sources: sources as never })).toThrow(
        /"sources".*a non-empty array of 'sqs', 'sns', 'sns-raw', 'eventbridge', 's3'/,
      );
    },
  );

  it('accepts a zod schema through Standard Schema', () => {
    expect(resolveOptions({ ...valid, schema: z.object({ id: z.string() }) }).schema).toBeDefined();
  });

  it('validates at creation: createBatchProcessor throws before any event', () => {
    expect(() =>
      createBatchProcessor(async () => {}, { ...valid, performance: { concurrency: -1 } }),
    ).toThrow(InvalidConfigurationError);
    expect(() => createBatchProcessor('handler' as never, valid)).toThrow(/"handler"/);
  });
});

describe('DynamoDBInboxStore options', () => {
  it('bounds the default client’s waits so a stalled socket becomes a retryable timeout', async () => {
    const { requestHandler } = new DynamoDBInboxStore({
      tableName: 'inbox',
      clientConfig: { region: 'us-east-1' },
    }).client.config;
    const handler = requestHandler as unknown as {
      configProvider: Promise<Record<string, unknown>>;
    };

    expect(await handler.configProvider).toMatchObject({
      requestTimeout: 10_000,
      connectionTimeout: 3_000,
      throwOnRequestTimeout: true,
    });
  });

  it.each([
    [{ tableName: 'x' }, /"tableName"/],
    [{ tableName: 'inbox', region: 'eu-west-1' }, /"region"/],
    [{ tableName: 'inbox', client: {} }, /"client"/],
    [
      { tableName: 'inbox', client: new DynamoDBClient({}), clientConfig: { region: 'eu-west-1' } },
      /"clientConfig"/,
    ],
    [{ tableName: 'inbox', outbox: 'outbox' }, /"options"/],
    [{ tableName: 'inbox', outbox: { tableName: 'o' } }, /"outbox.tableName"/],
    [{ tableName: 'inbox', outbox: { tableName: 'inbox' } }, /a table of its own/],
    [{ tableName: 'inbox', outbox: { tableName: 'outbox', retention: 5 } }, /"retention"/],
    [{ tableName: 'inbox', outbox: { tableName: 'outbox', retentionSeconds: 3600 } }, /172800 to/],
  ])('rejects %j', (options, message) => {
    expect(() => new DynamoDBInboxStore(options as never)).toThrow(message);
  });

  it('keeps an outbox item at least two days, so that it outlives its 24-hour stream record by a day: 172,800 s accepted, one second less refused', () => {
    const store = (retentionSeconds: number) =>
      new DynamoDBInboxStore({
        tableName: 'inbox',
        outbox: { tableName: 'outbox', retentionSeconds },
      });
    expect(store(172_800).outbox?.retentionSeconds).toBe(172_800);
    expect(() => store(172_799)).toThrow(/"outbox.retentionSeconds".*172800 to 31622400/);
  });

  it('keeps the outbox table and its retention, 7 days by default', () => {
    const store = new DynamoDBInboxStore({ tableName: 'inbox', outbox: { tableName: 'outbox' } });
    expect(store.outbox).toEqual({ tableName: 'outbox', retentionSeconds: 604_800 });
    expect(store.outboxTableName).toBe('outbox');
    expect(new DynamoDBInboxStore({ tableName: 'inbox' }).outboxTableName).toBeUndefined();
  });

  it('builds no client until the first use', () => {
    let configRead = false;
    const clientConfig = {
      get region() {
        configRead = true;
        return 'eu-west-1';
      },
    };
    const lazy = new DynamoDBInboxStore({ tableName: 'inbox', clientConfig });
    expect(configRead).toBe(false);

    expect(lazy.client).toBe(lazy.client);
    expect(configRead).toBe(true);
  });
});
