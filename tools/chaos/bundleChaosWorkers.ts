import { bundleForNode } from '../cli/bundleForNode.js';

/**
 * Bundles the chaos run's two process kinds, the consumer worker and the outbox relay, each into
 * one ES module (SDK and library included), so each of the run's many restarts loads one file
 * instead of transpiling TypeScript again.
 *
 * @example
 * ```ts
 * const paths = await bundleChaosWorkers(); // { consumer: '/tmp/sqs-inbox-chaosWorker-…/chaosWorker.mjs', relay: … }
 * ```
 */
export async function bundleChaosWorkers(): Promise<{ consumer: string; relay: string }> {
  const [consumer, relay] = await Promise.all([
    bundleForNode('tools/chaos/chaosWorker.ts'),
    bundleForNode('tools/chaos/relayWorker.ts'),
  ]);
  return { consumer, relay };
}
