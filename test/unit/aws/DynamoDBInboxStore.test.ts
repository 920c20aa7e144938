import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DynamoDBClient,
  DynamoDBServiceException,
  InternalServerError,
  ProvisionedThroughputExceededException,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { TransientReason } from '../../../src/errors.js';
import {
  createBatchProcessor,
  DynamoDBInboxStore,
  type InboxOptions,
  RecordStatus,
  redriveUnsafeMessageIdKey,
  TransientStoreError,
} from '../../../src/index.js';
import { injectFault } from '../../../tools/sdk/clientSpy.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../../support/sqsRecords.js';
import { withOptions } from '../../support/withOptions.js';

/** A client pointed at a closed port: every fault below is thrown before any request leaves. */
function offlineClient() {
  return new DynamoDBClient({
    endpoint: 'http://127.0.0.1:9',
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
}

/** A store whose own client talks to a local test server. */
function storeAt(port: number, clientConfig: Record<string, unknown> = {}) {
  return new DynamoDBInboxStore({
    tableName: 'inbox',
    clientConfig: {
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      ...clientConfig,
    },
  });
}

const entry = {
  pk: 'unit#k',
  consumer: 'unit',
  key: 'k',
  messageId: 'm-1',
  status: 'COMPLETED' as const,
  payloadHash: 'h',
  processedAt: '2026-01-01T00:00:00.000Z',
  expiresAt: 2_000_000_000,
  formatVersion: 1,
};

/** A processor whose handler writes nothing, keyed by messageId, without the pre-check read. */
function silentProcessor(store: DynamoDBInboxStore, options: Partial<InboxOptions> = {}) {
  return createBatchProcessor(
    async () => {},
    withOptions<InboxOptions>(
      {
        store,
        consumer: 'unit',
        key: redriveUnsafeMessageIdKey,
        performance: { precheck: 'off' },
        observability: { logger: recordingLogger() },
      },
      options,
    ),
  );
}

const faults: Array<{ name: string; reason: TransientReason; error: () => Error }> = [
  {
    name: 'TransactionConflict',
    reason: TransientReason.TransactionConflict,
    error: () =>
      new TransactionCanceledException({
        message: 'Transaction cancelled [None, TransactionConflict]',
        $metadata: {},
        CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
      }),
  },
  {
    name: 'throttling',
    reason: TransientReason.Throttling,
    error: () =>
      new ProvisionedThroughputExceededException({ message: 'Rate exceeded', $metadata: {} }),
  },
  {
    name: 'a cancelled transaction for throttling',
    reason: TransientReason.Throttling,
    error: () =>
      new TransactionCanceledException({
        message: 'Transaction cancelled [ThrottlingError]',
        $metadata: {},
        CancellationReasons: [{ Code: 'ThrottlingError' }],
      }),
  },
  {
    name: 'an InternalServerError',
    reason: TransientReason.ServerError,
    error: () =>
      new InternalServerError({
        message: 'Internal server error',
        $metadata: { httpStatusCode: 500 },
      }),
  },
  {
    name: 'a 503',
    reason: TransientReason.ServerError,
    error: () =>
      new DynamoDBServiceException({
        name: 'ServiceUnavailable',
        $fault: 'server',
        message: 'unavailable',
        $metadata: { httpStatusCode: 503 },
      }),
  },
  {
    name: 'a request timeout',
    reason: TransientReason.Timeout,
    error: () => Object.assign(new Error('socket timed out'), { name: 'TimeoutError' }),
  },
];

describe('DynamoDBInboxStore fault translation (injected: no emulator produces these)', () => {
  it.each(faults)('turns $name into a TransientStoreError ($reason)', async ({ reason, error }) => {
    const client = offlineClient();
    injectFault(client, 'TransactWriteItemsCommand', error);
    const store = new DynamoDBInboxStore({ tableName: 'inbox', client });

    const commit = store.commit({ entry, operations: [], nowEpochSeconds: 1 });

    await expect(commit).rejects.toBeInstanceOf(TransientStoreError);
    await expect(commit).rejects.toMatchObject({ reason });
  });

  it('turns a single-item TransactionConflictException (a step write meeting a commit) into a TransientStoreError', async () => {
    const client = offlineClient();
    injectFault(
      client,
      'UpdateItemCommand',
      () => new TransactionConflictException({ message: 'Transaction is ongoing', $metadata: {} }),
    );
    const store = new DynamoDBInboxStore({ tableName: 'inbox', client });

    const heartbeat = store.heartbeat({
      pk: 'unit#k',
      lease: { owner: 'o', epoch: 1 },
      leaseUntilMillis: 2,
      expiresAt: 3,
    });

    await expect(heartbeat).rejects.toMatchObject({ reason: TransientReason.TransactionConflict });
  });

  it('recognises SDK errors by name when they come from another copy of the SDK', async () => {
    const client = offlineClient();
    const foreign = () =>
      Object.assign(new Error('Transaction cancelled'), {
        name: 'TransactionCanceledException',
        CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
      });
    injectFault(client, 'TransactWriteItemsCommand', foreign);
    const store = new DynamoDBInboxStore({ tableName: 'inbox', client });

    await expect(store.commit({ entry, operations: [], nowEpochSeconds: 1 })).rejects.toMatchObject(
      {
        reason: TransientReason.TransactionConflict,
      },
    );
  });

  it('turns a stalled socket into a TransientStoreError (Timeout) instead of waiting for Lambda’s timeout', async () => {
    const server = createServer(() => {}); // accepts, never answers
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const store = storeAt(port, {
      maxAttempts: 1,
      requestHandler: { requestTimeout: 200, throwOnRequestTimeout: true },
    });

    try {
      await expect(store.find('unit#k')).rejects.toMatchObject({ reason: TransientReason.Timeout });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('passes errors it does not know through unchanged', async () => {
    const client = offlineClient();
    const unknown = new Error('something else');
    injectFault(client, 'TransactWriteItemsCommand', () => unknown);
    const store = new DynamoDBInboxStore({ tableName: 'inbox', client });

    await expect(store.commit({ entry, operations: [], nowEpochSeconds: 1 })).rejects.toBe(unknown);
  });

  it('reports the record failed after the configured attempts of injected throttling', async () => {
    const client = offlineClient();
    const fault = injectFault(
      client,
      'TransactWriteItemsCommand',
      faults[1]?.error ?? (() => new Error()),
    );
    const store = new DynamoDBInboxStore({ tableName: 'inbox', client });
    const processor = silentProcessor(store, {
      runtime: { sleep: async () => {} },
      reliability: { transactionAttempts: 4 },
    });
    const record = sqsRecord({ id: 1 });

    const [outcome] = await processor.processRecords(sqsEvent(record));

    expect(fault.injected()).toBe(4);
    expect(outcome).toMatchObject({ status: RecordStatus.Failed, messageId: record.messageId });
    expect(outcome?.error).toBeInstanceOf(TransientStoreError);
  });

  it('backs off between attempts of injected throttling with the runtime’s sleep and jitter only', async () => {
    const client = offlineClient();
    injectFault(client, 'TransactWriteItemsCommand', faults[1]?.error ?? (() => new Error()));
    const sleptMillis: number[] = [];
    const processor = silentProcessor(new DynamoDBInboxStore({ tableName: 'inbox', client }), {
      runtime: {
        now: () => 1_700_000_000_000,
        random: () => 0.5,
        sleep: async (millis) => {
          sleptMillis.push(millis);
        },
      },
      reliability: { transactionAttempts: 5 },
    });

    await processor.processRecords(sqsEvent(sqsRecord({ id: 1 })));

    // Full jitter (0.5 here) of 50 ms doubled per attempt, capped at 1 s; the 0 ms waits are
    // the batch gathering its commits before each send.
    expect(sleptMillis.filter((millis) => millis > 0)).toEqual([50, 100, 200, 400]);
  });

  it('retries an injected TransactionConflict past the attempts, waiting on the scale of a transaction, until a batch without a deadline spent its 30 s', async () => {
    const client = offlineClient();
    const startMillis = 1_700_000_000_000;
    let nowMillis = startMillis;
    // Each cancelled transaction takes DynamoDB's published p50 round trip on the test's clock.
    const fault = injectFault(client, 'TransactWriteItemsCommand', () => {
      nowMillis += 25;
      return faults[0]?.error() ?? new Error();
    });
    const sleptMillis: number[] = [];
    const processor = silentProcessor(new DynamoDBInboxStore({ tableName: 'inbox', client }), {
      runtime: {
        now: () => nowMillis,
        random: () => 0.5,
        sleep: async (millis) => {
          sleptMillis.push(millis);
          nowMillis += millis;
        },
      },
      reliability: { transactionAttempts: 3 },
    });

    const [outcome] = await processor.processRecords(sqsEvent(sqsRecord({ id: 1 })));

    expect(outcome).toMatchObject({ status: RecordStatus.Failed });
    expect(outcome?.error).toMatchObject({ reason: TransientReason.TransactionConflict });
    expect(fault.injected()).toBeGreaterThan(300);
    expect(Math.max(...sleptMillis)).toBeLessThanOrEqual(100);
    expect(nowMillis - startMillis).toBeGreaterThan(29_900);
    expect(nowMillis - startMillis).toBeLessThanOrEqual(30_025);
  });

  it('gives up an injected TransactionConflict after 1,000 in a row when the clock stands still', async () => {
    const client = offlineClient();
    const fault = injectFault(
      client,
      'TransactWriteItemsCommand',
      faults[0]?.error ?? (() => new Error()),
    );
    const processor = silentProcessor(new DynamoDBInboxStore({ tableName: 'inbox', client }), {
      runtime: { now: () => 1_700_000_000_000, sleep: async () => {} },
    });

    const [outcome] = await processor.processRecords(sqsEvent(sqsRecord({ id: 1 })));

    expect(outcome).toMatchObject({ status: RecordStatus.Failed });
    expect(fault.injected()).toBe(1_000);
  });
});

/**
 * How long the connection test's server holds its answers for all 200 requests to be open at
 * once: they are within a second on an idle machine; generous, so that a machine shared with
 * other heavy jobs never answers early (which would cap the count below 200) while the client
 * behaves. Not a speed target; the test's own timeout sits above it.
 */
const CONNECTIONS_BOUND_MILLIS = 30_000;

describe('the client the store builds', { timeout: 2 * CONNECTIONS_BOUND_MILLIS }, () => {
  it('opens as many connections as the processor runs records at once (not the SDK’s 50)', async () => {
    // The server answers nothing until 200 requests are open at once (or the bound has passed).
    let maxInFlight = 0;
    const open: Array<() => void> = [];
    const answerAll = () => {
      for (const answer of open.splice(0)) answer();
    };
    const giveUp = setTimeout(answerAll, CONNECTIONS_BOUND_MILLIS);
    const server = createServer((request, response) => {
      request.resume();
      open.push(() => {
        response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
        response.end('{}');
      });
      maxInFlight = Math.max(maxInFlight, open.length);
      if (open.length === 200) answerAll();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const store = storeAt(port);
    const processor = silentProcessor(store, {
      performance: { concurrency: 200 },
    });
    const records = Array.from({ length: 200 }, (_, n) => sqsRecord({ n }));

    try {
      const outcomes = await processor.processRecords(sqsEvent(...records));

      expect(outcomes.every((outcome) => outcome.status === RecordStatus.Processed)).toBe(true);
      expect(maxInFlight).toBe(200);
    } finally {
      clearTimeout(giveUp);
      server.closeAllConnections();
      server.close();
    }
  });
});
