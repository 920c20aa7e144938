import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { mapConcurrently } from '../../../src/batch/mapConcurrently.js';

describe('mapConcurrently', () => {
  it('returns the results in the items’ order, whatever order the tasks finish in', async () => {
    const results = await mapConcurrently([30, 10, 20], 3, async (millis) => {
      await sleep(millis);
      return millis * 2;
    });

    expect(results).toEqual([60, 20, 40]);
  });

  it.each([1, 2, 4])('runs at most %i tasks at once and every task once', async (concurrency) => {
    let running = 0;
    let most = 0;
    const seen: number[] = [];

    await mapConcurrently([...Array(10).keys()], concurrency, async (item) => {
      running++;
      most = Math.max(most, running);
      await sleep(2);
      seen.push(item);
      running--;
    });

    expect(most).toBe(concurrency);
    expect(seen.sort((a, b) => a - b)).toEqual([...Array(10).keys()]);
  });

  it('maps an empty list without running anything', async () => {
    expect(await mapConcurrently([], 5, async () => 1)).toEqual([]);
  });
});
