import type { CommitCoalescer } from '../coalescing/CommitCoalescer.js';
import type { ItemTurns } from '../contention/ItemTurns.js';
import type { CommitRequest, CommitResult } from './InboxStore.js';
import type { ResolvedOptions } from './resolveOptions.js';
import { reportedConflict } from './retryTransient.js';

/**
 * Sends a commit: shared with others' (`coalesce`, which never sends two that share an item at
 * once), or alone once no other commit of the batch that shares an item with it is in flight.
 * Its round trip, committed or cancelled, teaches the conflict backoff.
 *
 * @example
 * ```ts
 * const result = await sendCommit(request, signal, { options, coalescer, turns });
 * ```
 */
export async function sendCommit(
  request: CommitRequest,
  signal: AbortSignal,
  batch: {
    readonly options: ResolvedOptions;
    readonly coalescer: CommitCoalescer | undefined;
    readonly turns: ItemTurns | undefined;
  },
): Promise<CommitResult> {
  const { options, coalescer, turns } = batch;
  if (coalescer) return coalescer.commit(request, signal);
  const { store, runtime, conflictBackoff } = options;
  const itemIds = turns && store.identifyItems ? await store.identifyItems(request) : undefined;
  const release = itemIds && turns ? await turns.take(itemIds) : undefined;
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
  } finally {
    release?.();
  }
}
