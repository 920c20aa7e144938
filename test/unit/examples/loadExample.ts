import * as library from 'sqs-inbox';
import type { InboxTest } from 'sqs-inbox/testing';
import { vi } from 'vitest';

type BatchProcessor = ReturnType<typeof library.createBatchProcessor>;

/**
 * Loads an example handler module as a Lambda container loads it, once: its module-scope
 * `inboxConfigFromEnvironment()` answered over the kit (`inbox.inboxConfig()`).
 * Returns the batch processor whose `process` the module exports as `handler`, for `inbox.run`.
 *
 * @example
 * ```ts
 * const ledger = await loadExample(inbox, () => import('../../../examples/quickStart/ledger.js'));
 * ```
 */
export async function loadExample(
  inbox: InboxTest,
  load: () => Promise<{ readonly handler: unknown }>,
): Promise<BatchProcessor> {
  const built: BatchProcessor[] = [];
  vi.doMock('sqs-inbox', () => ({
    ...library,
    inboxConfigFromEnvironment: () => inbox.inboxConfig(),
    createBatchProcessor: (...args: Parameters<typeof library.createBatchProcessor>) => {
      const processor = library.createBatchProcessor(...args);
      built.push(processor);
      return processor;
    },
  }));
  try {
    const { handler } = await load();
    const [processor, ...others] = built;
    if (processor === undefined || others.length > 0 || handler !== processor.process)
      throw new Error(`the example built ${built.length} processors; its handler is not one's`);
    return processor;
  } finally {
    vi.doUnmock('sqs-inbox');
  }
}
