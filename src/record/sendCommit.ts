import type { CommitCoalescer } from '../coalescing/CommitCoalescer.js';
import type { CommitRequest, CommitResult } from '../core/InboxStore.js';
import type { ResolvedOptions } from '../core/resolveOptions.js';
import { reportedConflict } from '../core/retryTransient.js';

/**
 * Sends a commit through the batch's coalescer (which never sends two that share an item at
 * once), or, for a store that cannot share transactions, alone; its round trip, committed or
 * cancelled for a conflict, then teaches the conflict backoff.
 *
 * @example
 * ```ts
 * const result = await sendCommit(request, signal, { options, coalescer });
 * ```
 */
export async function sendCommit(
  request: CommitRequest,
  signal: AbortSignal,
  batch: {
    readonly options: ResolvedOptions;
    readonly coalescer: CommitCoalescer | undefined;
  },
): Promise<CommitResult> {
  const { options, coalescer } = batch;
  if (coalescer) return coalescer.commit(request, signal);
  const { store, runtime, conflictBackoff } = options;
  const sentMillis = runtime.now();
  const observe = () => conflictBackoff.observe(runtime.now() - sentMillis);
  try {
    const result = await store.commit(request);
    observe();
    return result;
  } catch (error) {
    // The same rule as the coalescer's: a committed or conflict-cancelled round trip only.
    if (reportedConflict(error)) observe();
    throw error;
  }
}
