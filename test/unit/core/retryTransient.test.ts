import {
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { ConflictBackoff } from '../../../src/contention/ConflictBackoff.js';
import { retryTransient } from '../../../src/core/retryTransient.js';
import { TransientReason } from '../../../src/errors.js';
import { TransientStoreError } from '../../../src/index.js';

/** A runtime whose sleep moves a fake clock at once, and records each wait. */
function fakeRuntime() {
  let nowMillis = 0;
  const waits: number[] = [];
  return {
    waits,
    runtime: {
      now: () => nowMillis,
      random: () => 0.5,
      sleep: async (millis: number) => {
        waits.push(millis);
        nowMillis += millis;
      },
    },
  };
}

/** What DynamoDB answers a write on an item a transaction holds (injected: no emulator does). */
const conflictAnswer = () =>
  new TransactionConflictException({
    message: 'Transaction is ongoing for the item',
    $metadata: {},
  });

/** A request that fails with `reason` (injected: no emulator produces it) `times` times, then answers. */
function failing(reason: TransientReason, times: number, cause: () => unknown = conflictAnswer) {
  let calls = 0;
  const request = async () => {
    calls++;
    if (calls <= times) throw new TransientStoreError(reason, cause());
    return 'done';
  };
  return { request, calls: () => calls };
}

const never = new AbortController().signal;

describe('retryTransient', () => {
  it('retries TransactionConflict (injected) past the attempts, after waits on the scale of a transaction', async () => {
    const { runtime, waits } = fakeRuntime();
    const conflicts = { backoff: new ConflictBackoff(), untilMillis: Number.POSITIVE_INFINITY };
    const { request, calls } = failing(TransientReason.TransactionConflict, 20);

    await expect(
      retryTransient(request, { attempts: 3, runtime, signal: never, conflicts }),
    ).resolves.toBe('done');

    expect(calls()).toBe(21);
    expect(Math.max(...waits)).toBeLessThanOrEqual(4 * 25);
  });

  it('stops retrying conflicts (injected) once the next wait would end past untilMillis', async () => {
    const { runtime } = fakeRuntime();
    const conflicts = { backoff: new ConflictBackoff(), untilMillis: 200 };
    const { request, calls } = failing(TransientReason.TransactionConflict, 1_000);

    await expect(
      retryTransient(request, { attempts: 3, runtime, signal: never, conflicts }),
    ).rejects.toMatchObject({ reason: TransientReason.TransactionConflict });
    expect(calls()).toBeGreaterThan(3);
    expect(calls()).toBeLessThan(20);
  });

  it('stops retrying conflicts (injected) when the batch’s deadline aborts its signal', async () => {
    const { runtime } = fakeRuntime();
    const deadline = new AbortController();
    const conflicts = { backoff: new ConflictBackoff(), untilMillis: Number.POSITIVE_INFINITY };
    let calls = 0;
    const request = async () => {
      calls++;
      if (calls === 5) deadline.abort(new Error('deadline'));
      throw new TransientStoreError(TransientReason.TransactionConflict, conflictAnswer());
    };

    await expect(
      retryTransient(request, { attempts: 3, runtime, signal: deadline.signal, conflicts }),
    ).rejects.toBeInstanceOf(TransientStoreError);
    expect(calls).toBe(5);
  });

  it('gives throttling (injected) its attempts and exponential backoff, conflicts or not', async () => {
    const { runtime, waits } = fakeRuntime();
    const conflicts = { backoff: new ConflictBackoff(), untilMillis: Number.POSITIVE_INFINITY };
    const { request, calls } = failing(TransientReason.Throttling, 10);

    await expect(
      retryTransient(request, { attempts: 3, runtime, signal: never, conflicts }),
    ).rejects.toMatchObject({ reason: TransientReason.Throttling });

    expect(calls()).toBe(3);
    expect(waits).toEqual([50, 100]);
  });

  it('counts a conflict (injected) as an attempt when no conflict policy is given', async () => {
    const { runtime } = fakeRuntime();
    const { request, calls } = failing(TransientReason.TransactionConflict, 10);

    await expect(
      retryTransient(request, { attempts: 3, runtime, signal: never }),
    ).rejects.toThrow();
    expect(calls()).toBe(3);
  });

  it('gives a conflict the library only infers (no DynamoDB answer behind it) the attempts, not the deadline', async () => {
    const { runtime } = fakeRuntime();
    const conflicts = { backoff: new ConflictBackoff(), untilMillis: Number.POSITIVE_INFINITY };
    const { request, calls } = failing(TransientReason.TransactionConflict, 10, () => undefined);

    await expect(
      retryTransient(request, { attempts: 3, runtime, signal: never, conflicts }),
    ).rejects.toBeInstanceOf(TransientStoreError);
    expect(calls()).toBe(3);
  });

  it('retries a transaction cancelled with a TransactionConflict reason (injected) as a conflict', async () => {
    const { runtime } = fakeRuntime();
    const conflicts = { backoff: new ConflictBackoff(), untilMillis: Number.POSITIVE_INFINITY };
    const cancelled = () =>
      new TransactionCanceledException({
        message: 'Transaction cancelled [None, TransactionConflict]',
        $metadata: {},
        CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
      });
    const { request, calls } = failing(TransientReason.TransactionConflict, 10, cancelled);

    await expect(
      retryTransient(request, { attempts: 3, runtime, signal: never, conflicts }),
    ).resolves.toBe('done');
    expect(calls()).toBe(11);
  });

  it('does not retry an error that is not transient', async () => {
    const { runtime } = fakeRuntime();
    let calls = 0;
    const request = async () => {
      calls++;
      throw new Error('condition failed');
    };

    await expect(
      retryTransient(request, { attempts: 3, runtime, signal: never }),
    ).rejects.toThrow();
    expect(calls).toBe(1);
  });
});
