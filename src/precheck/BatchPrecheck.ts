import { Precheck } from '../constants/values.js';
import type { InboxStore } from '../core/InboxStore.js';
import type { InboxEntry } from '../core/inboxEntry.js';
import type { ResolvedOptions } from '../core/resolveOptions.js';
import { InboxTableSchemaError, TransientStoreError } from '../errors.js';

const NOTHING_FOUND: ReadonlyMap<string, InboxEntry> = new Map();

/**
 * One batch's read of the inbox: the entries of the batch's keys, read once for the whole
 * batch (see {@link Precheck}), and the entries the batch itself committed since. What it
 * knows is a hint for skipping work: an entry committed marks a duplicate; a key it does not
 * know, or a read that failed, leaves the decision to the commit's condition. A read that found
 * the inbox table's key schema wrong fails every record with that `InboxTableSchemaError`.
 *
 * @example
 * ```ts
 * const precheck = BatchPrecheck.start(Precheck.Concurrent, keysOfBatch, options);
 * const entry = precheck?.now(pk) ?? (await precheck?.answer(pk));
 * ```
 */
export class BatchPrecheck {
  readonly mode: Precheck;
  readonly #answer: Promise<ReadonlyMap<string, InboxEntry>>;
  #found: ReadonlyMap<string, InboxEntry> | undefined;
  #schemaError: InboxTableSchemaError | undefined;
  /** Entries this batch committed: a later record of the same key is their duplicate. */
  readonly #committed = new Map<string, InboxEntry>();

  private constructor(mode: Precheck, answer: Promise<ReadonlyMap<string, InboxEntry>>) {
    this.mode = mode;
    this.#answer = answer.then(
      (found) => {
        this.#found = found;
        return found;
      },
      (error: InboxTableSchemaError) => {
        this.#schemaError = error;
        this.#found = NOTHING_FOUND;
        return NOTHING_FOUND;
      },
    );
  }

  /**
   * Starts the read of the batch's inbox keys (`pks`, settled once every record is read up to
   * its key); undefined when `off`. In `concurrent` mode a batch of a single key reads nothing:
   * the read could only race that record's own commit.
   */
  static start(
    pks: Promise<readonly string[]>,
    options: Pick<ResolvedOptions, 'precheck' | 'store' | 'logger' | 'consumer' | 'warned'>,
  ): BatchPrecheck | undefined {
    if (options.precheck === Precheck.Off) return undefined;
    const fewest = options.precheck === Precheck.Concurrent ? 2 : 1;
    const answer = pks.then(async (keys) => {
      const distinct = [...new Set(keys)];
      if (distinct.length < fewest) return NOTHING_FOUND;
      try {
        return await readEntries(options.store, distinct);
      } catch (error) {
        if (error instanceof InboxTableSchemaError) throw error;
        logReadFailure(error, options);
        return NOTHING_FOUND;
      }
    });
    return new BatchPrecheck(options.precheck, answer);
  }

  /** Whether the read has answered (or given up). */
  get answered(): boolean {
    return this.#found !== undefined;
  }

  /** Settles once the read has answered (or given up); never rejects. */
  async whenAnswered(): Promise<void> {
    await this.#answer;
  }

  /** The entry known for `pk` now: committed by this batch, or found by a read that answered. */
  now(pk: string): InboxEntry | undefined {
    if (this.#schemaError !== undefined) throw this.#schemaError;
    return this.#committed.get(pk) ?? this.#found?.get(pk);
  }

  /** The entry known for `pk` once the read answered. */
  async answer(pk: string): Promise<InboxEntry | undefined> {
    await this.#answer;
    return this.now(pk);
  }

  /** Records an entry this batch committed. */
  remember(entry: InboxEntry): void {
    this.#committed.set(entry.pk, entry);
  }
}

function readEntries(
  store: InboxStore,
  pks: readonly string[],
): Promise<ReadonlyMap<string, InboxEntry>> {
  if (store.findMany !== undefined) return store.findMany(pks);
  return Promise.all(pks.map((pk) => store.find(pk))).then(
    (entries) =>
      new Map(entries.flatMap((entry) => (entry === undefined ? [] : [[entry.pk, entry]]))),
  );
}

/**
 * A transient failure is routine (the commit decides instead); any other, such as a role
 * without `dynamodb:BatchGetItem`, is logged once per container with what to change.
 */
function logReadFailure(
  error: unknown,
  options: Pick<ResolvedOptions, 'logger' | 'consumer' | 'warned'>,
): void {
  const errorName = error instanceof Error ? error.name : typeof error;
  if (error instanceof TransientStoreError) {
    options.logger.debug('the pre-check read failed; commits decide alone', {
      consumer: options.consumer,
      reason: error.reason,
    });
    return;
  }
  if (options.warned.has('precheckRead')) return;
  options.warned.add('precheckRead');
  options.logger.warn(
    'the pre-check read of the inbox failed, so duplicates run their handler until the commit ' +
      "finds them: allow dynamodb:BatchGetItem on the inbox table, or set precheck: 'off'",
    { consumer: options.consumer, errorName },
  );
}
