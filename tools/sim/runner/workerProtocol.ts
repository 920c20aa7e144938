import type { WorldConflicts } from '../world/runWorld.js';
import type { WorldConfig } from '../world/WorldConfig.js';

/**
 * What the parent of `npm run sim` asks a world-running worker.
 *
 * @example
 * ```ts
 * worker.send({ type: 'run', seeds: [1, 2, 3], hashesOf: [3], keepTrace: false });
 * ```
 */
export type WorkerRequest =
  | {
      readonly type: 'run';
      readonly seeds: readonly number[];
      /** Seeds whose trace hash to send back even when they pass (the determinism guard's sample). */
      readonly hashesOf: readonly number[];
      readonly keepTrace: boolean;
      /** The configuration of every world of the request, instead of the one each seed draws. */
      readonly config?: WorldConfig;
    }
  | { readonly type: 'stop' };

/**
 * A worker's answer: how many seeds passed, and the results worth sending back (failures,
 * sampled hashes, traces when asked).
 *
 * @example
 * ```ts
 * worker.on('message', (reply: WorkerReply) => console.log(reply.passed));
 * ```
 */
export interface WorkerReply {
  readonly type: 'ready' | 'done';
  readonly passed: number;
  readonly steps: number;
  /** Transactions that committed several messages at once, and how many DynamoDB cancelled. */
  readonly sharedCommits: { readonly sent: number; readonly cancelled: number };
  /** The seeds' conflicts: real ones in the worlds with the conflict rules on, and injected ones. */
  readonly conflicts: ConflictCounts;
  readonly results: ReadonlyArray<{
    readonly seed: number;
    readonly failures: readonly string[];
    readonly traceHash: string;
    readonly trace: readonly string[];
    readonly config: WorldConfig;
    readonly conflicts: WorldConflicts;
  }>;
}

/**
 * Conflicts summed over worlds: how many worlds had the conflict rules on, the real conflicts
 * (a write refused for an item a transaction in flight held) and the injected ones.
 *
 * @example
 * ```ts
 * const perWorld = counts.real / Math.max(1, counts.worldsWithRules);
 * ```
 */
export interface ConflictCounts {
  readonly worldsWithRules: number;
  readonly real: number;
  readonly injected: number;
}
