import { bundleForNode } from '../cli/bundleForNode.js';

/**
 * Bundles the chaos worker into one ES module (SDK and library included), so each of the
 * run's many restarts loads one file instead of transpiling TypeScript again.
 *
 * @example
 * ```ts
 * const workerPath = await bundleChaosWorker(); // /tmp/sqs-inbox-chaosWorker-…/chaosWorker.mjs
 * ```
 */
export function bundleChaosWorker(): Promise<string> {
  return bundleForNode('tools/chaos/chaosWorker.ts');
}
