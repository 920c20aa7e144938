import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperationLock, operationLockPk } from '../../../src/aws/OperationLock.js';
import { testAws } from '../../harness/aws.js';

const aws = testAws();
let table: string;
const LEASE_MILLIS = 60_000;

beforeAll(async () => {
  table = await aws.createInboxTable(aws.uniqueName('ops-lock'));
});
afterAll(() => aws.cleanup());

/** Two runs' locks on one DLQ, as two commands would make them. */
function twoRuns() {
  const pk = operationLockPk('dlq', `arn:aws:sqs:us-east-1:000000000000:dlq-${randomUUID()}`);
  return {
    pk,
    first: new OperationLock(aws.documentClient, table, pk, 'run-1'),
    second: new OperationLock(aws.documentClient, table, pk, 'run-2'),
  };
}

async function holder(pk: string) {
  const { Item } = await aws.documentClient.send(
    new GetCommand({ TableName: table, Key: { pk }, ConsistentRead: true }),
  );
  return Item as { owner: string; leaseUntilMillis: number } | undefined;
}

describe('OperationLock, the one-run-per-DLQ lock of the redrive', () => {
  it('refuses a second run while the first holds a live lease, and lets it take a lapsed one', async () => {
    const { pk, first, second } = twoRuns();
    const now = Date.now();
    expect(await first.acquire(now, LEASE_MILLIS)).toBe(true);
    expect(await second.acquire(now + 1_000, LEASE_MILLIS)).toBe(false);
    expect(await second.acquire(now + LEASE_MILLIS + 1, LEASE_MILLIS)).toBe(true);
    expect((await holder(pk))?.owner).toBe('run-2');
  });

  it('renews its holder’s lease: a second run is refused past the first lease’s end', async () => {
    const { pk, first, second } = twoRuns();
    const now = Date.now();
    expect(await first.acquire(now, LEASE_MILLIS)).toBe(true);
    expect(await first.renew(now + 40_000, LEASE_MILLIS)).toBe(true);
    expect((await holder(pk))?.leaseUntilMillis).toBe(now + 40_000 + LEASE_MILLIS);
    expect(await second.acquire(now + LEASE_MILLIS + 1, LEASE_MILLIS)).toBe(false);
  });

  it('refuses the renewal of a run whose lapsed lease another run took, and leaves that run the holder', async () => {
    const { pk, first, second } = twoRuns();
    const now = Date.now();
    expect(await first.acquire(now, LEASE_MILLIS)).toBe(true);
    expect(await second.acquire(now + LEASE_MILLIS + 1, LEASE_MILLIS)).toBe(true);
    expect(await first.renew(now + LEASE_MILLIS + 2, LEASE_MILLIS)).toBe(false);
    expect((await holder(pk))?.owner).toBe('run-2');
  });

  it('refuses the renewal of a run whose lock another run took and released', async () => {
    const { pk, first, second } = twoRuns();
    const now = Date.now();
    expect(await first.acquire(now, LEASE_MILLIS)).toBe(true);
    expect(await second.acquire(now + LEASE_MILLIS + 1, LEASE_MILLIS)).toBe(true);
    await second.release();
    expect(await first.renew(now + LEASE_MILLIS + 2, LEASE_MILLIS)).toBe(false);
    expect(await holder(pk)).toBeUndefined();
  });

  it('releases only its own lease', async () => {
    const { pk, first, second } = twoRuns();
    const now = Date.now();
    expect(await first.acquire(now, LEASE_MILLIS)).toBe(true);
    await second.release();
    expect((await holder(pk))?.owner).toBe('run-1');
    await first.release();
    expect(await holder(pk)).toBeUndefined();
  });
});
