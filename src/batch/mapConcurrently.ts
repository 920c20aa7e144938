/**
 * Maps `items` with `task`, at most `concurrency` tasks at a time, and returns the results in
 * the items' order. Workers take the next item as soon as they finish one. A task that rejects
 * rejects the whole map (the processor's tasks never do: every failure is an outcome).
 *
 * Written here rather than taken from `p-limit`, which is ESM-only: the CommonJS build could
 * load it only through `require(esm)`, which Node.js 20 has only from 20.19 and with a warning.
 *
 * @example
 * ```ts
 * const sizes = await mapConcurrently(['a', 'bb'], 2, async (text) => text.length); // [1, 2]
 * ```
 */
export async function mapConcurrently<T, R>(
  items: readonly T[],
  concurrency: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const work = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T);
    }
  };
  const workers = Math.max(1, Math.min(concurrency, items.length));
  await Promise.all(Array.from({ length: workers }, work));
  return results;
}
