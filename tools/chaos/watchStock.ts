import { setTimeout as sleep } from 'node:timers/promises';
import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { InvariantResult } from '../local/checkInvariants.js';

/**
 * Reads the stock table every `intervalMillis` while the run goes on, so "inventory never below
 * zero" is checked during the run and not only at its end. `stop()` returns the invariant.
 *
 * @example
 * ```ts
 * const watch = watchStock(documentClient, stockTable, 2000);
 * // … the run …
 * const result = await watch.stop(); // { name: 'no SKU below zero at any moment sampled…', holds }
 * ```
 */
export function watchStock(
  client: DynamoDBDocumentClient,
  table: string,
  intervalMillis: number,
): { stop: () => Promise<InvariantResult> } {
  let samples = 0;
  let failedReads = 0;
  let lowest: { sku: string; available: number } | undefined;
  let running = true;
  const loop = (async () => {
    while (running) {
      const page = await client
        .send(new ScanCommand({ TableName: table, ConsistentRead: true }))
        .catch(() => undefined); // a failed read is a missed sample, counted below
      const Items = page?.Items ?? [];
      if (page) samples++;
      else failedReads++;
      for (const item of Items) {
        const available = Number(item.available);
        if (lowest === undefined || !(available >= lowest.available))
          lowest = { sku: String(item.sku), available };
      }
      await sleep(intervalMillis);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const holds = samples > 0 && lowest !== undefined && lowest.available >= 0;
      return {
        name: 'no SKU below zero at any moment sampled during the run',
        holds,
        detail: `${samples} samples (${failedReads} failed reads), lowest: ${lowest ? `${lowest.available} (${lowest.sku})` : 'none'}`,
      };
    },
  };
}
