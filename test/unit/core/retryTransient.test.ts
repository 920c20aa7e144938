import { describe, expect, it } from 'vitest';
import { ConflictBackoff } from '../../../src/contention/ConflictBackoff.js';
import { retryTransient } from '../../../src/core/retryTransient.js';
import { TransientReason, TransientStoreError } from '../../../src/index.js';

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

/** A request that fails with `reason` (injected: no emulator produces it) `times` times, then answers. */
function failing(reason: TransientReason, times: number) {
  let calls = 0;
  const request = async () => {
    calls++;
    if (calls <= times) throw new TransientStoreError(reason, undefined);
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
      throw new TransientStoreError(TransientReason.TransactionConflict, undefined);
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
