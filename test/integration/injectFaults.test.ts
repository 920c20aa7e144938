import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { transientReasonOf, translate } from '../../src/aws/dynamoDBErrors.js';
import { TransientReason } from '../../src/errors.js';
import type { TransientStoreError } from '../../src/index.js';
import { FaultKind, type InjectedFault, injectFaults } from '../../tools/chaos/injectFaults.js';
import { seededRandom } from '../../tools/local/demoTraffic.js';
import { testAws } from '../harness/aws.js';
import { SETTLE_BOUND_MILLIS } from '../support/manualRuntime.js';

const aws = testAws();
const config = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
};
let table: string;
let queueUrl: string;

beforeAll(async () => {
  table = await aws.createTable(aws.uniqueName('faults'), [['id', 'HASH']]);
  queueUrl = (await aws.createQueue(aws.uniqueName('faults'))).url;
});
afterAll(() => aws.cleanup());

/** A fresh client with faults at `rate`, and the faults it reported. */
function faultyDynamoDB(rate: number, seed = 1) {
  const client = new DynamoDBClient({ ...config, endpoint: aws.endpoints.dynamodb });
  const faults: InjectedFault[] = [];
  injectFaults(client, {
    service: 'dynamodb',
    rate,
    random: seededRandom(seed),
    maxTimeoutMillis: 20,
    onFault: (f) => faults.push(f),
  });
  return { documentClient: DynamoDBDocumentClient.from(client), faults };
}

const put = (id: string) => new PutCommand({ TableName: table, Item: { id } });
const stored = async (id: string) =>
  (
    await aws.documentClient.send(
      new GetCommand({ TableName: table, Key: { id }, ConsistentRead: true }),
    )
  ).Item;

describe('injectFaults (faults no emulator produces)', () => {
  it('lets every request through at rate 0', async () => {
    const { documentClient, faults } = faultyDynamoDB(0);
    for (let i = 0; i < 20; i++) await documentClient.send(put(`clean-${i}`));

    expect(faults).toEqual([]);
    expect(await stored('clean-19')).toEqual({ id: 'clean-19' });
  });

  it('fails about the given share of requests, and the same seed fails the same requests the same way', async () => {
    const run = async (seed: number) => {
      const { documentClient, faults } = faultyDynamoDB(0.3, seed);
      const failed: number[] = [];
      for (let i = 0; i < 100; i++)
        await documentClient.send(put(`rate-${seed}-${i}`)).catch(() => failed.push(i));
      return { failed, kinds: faults.map((f) => f.kind) };
    };
    const first = await run(4);

    expect(first.failed.length).toBeGreaterThan(15);
    expect(first.failed.length).toBeLessThan(45);
    expect(await run(4)).toEqual(first);
  });

  it('throws AWS-shaped errors the library classifies as transient, and a lost response after the write happened', async () => {
    const { documentClient, faults } = faultyDynamoDB(0.99, 2);
    const reasons = new Map<string, string>();
    for (let i = 0; reasons.size < 6 && i < 300; i++) {
      const id = `kind-${i}`;
      const error = await documentClient
        .send(
          new TransactWriteCommand({
            TransactItems: [{ Put: { TableName: table, Item: { id } } }],
          }),
        )
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      const kind = faults.at(-1)?.kind ?? '';
      if (error === undefined || reasons.has(kind)) continue;
      const translated =
        error instanceof TransactionCanceledException
          ? transientReasonOf(error.CancellationReasons ?? [])
          : (translate(error) as TransientStoreError).reason;
      reasons.set(kind, String(translated));
      if (kind === FaultKind.LostResponse) expect(await stored(id)).toEqual({ id });
      else if (kind === FaultKind.LateExecution)
        // The caller saw a timeout; the write still lands, later (within the injector's 2 s, plus
        // the request: the bound is generous for a loaded machine).
        await vi.waitFor(async () => expect(await stored(id)).toEqual({ id }), {
          timeout: SETTLE_BOUND_MILLIS,
        });
      else expect(await stored(id)).toBeUndefined();
    }
    // A cancelled transaction's reasons are read by the store (transientReasonOf).
    expect(Object.fromEntries(reasons)).toEqual({
      [FaultKind.TransactionConflict]: TransientReason.TransactionConflict,
      [FaultKind.Throttling]: TransientReason.Throttling,
      [FaultKind.ServerError]: TransientReason.ServerError,
      [FaultKind.Timeout]: TransientReason.Timeout,
      [FaultKind.LostResponse]: TransientReason.Timeout,
      [FaultKind.LateExecution]: TransientReason.Timeout,
    });
  });

  it('injects into an SQS client too: a lost response still sent the message', async () => {
    const client = new SQSClient({ ...config, endpoint: aws.endpoints.sqs });
    const faults: InjectedFault[] = [];
    injectFaults(client, {
      service: 'sqs',
      rate: 0.99,
      random: seededRandom(9),
      maxTimeoutMillis: 20,
      onFault: (f) => faults.push(f),
    });
    let lost = 0;
    for (let i = 0; lost === 0 && i < 50; i++)
      await client
        .send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: `m-${i}` }))
        .catch(() => {
          if (faults.at(-1)?.kind === FaultKind.LostResponse) lost++;
        });
    const { Attributes } = await aws.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages'],
      }),
    );

    expect(lost).toBe(1);
    expect(faults.every((f) => f.kind !== FaultKind.TransactionConflict)).toBe(true);
    expect(Number(Attributes?.ApproximateNumberOfMessages)).toBeGreaterThanOrEqual(1);
  });

  it('refuses a rate outside [0, 1)', () => {
    const client = new DynamoDBClient(config);
    expect(() =>
      injectFaults(client, { service: 'dynamodb', rate: 1, random: Math.random }),
    ).toThrow('the fault rate must be in [0, 1) (given 1)');
  });
});
