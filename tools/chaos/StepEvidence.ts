import type { InvariantResult } from '../local/InvariantResult.js';
import type { Item } from '../local/readRunState.js';
import type { CrashReport, StepReport } from './workerProtocol.js';

type Effect = { pk: string; step: string; epoch: number | undefined; worker: number; seq: number };
type JournalWrite = Effect & { epoch: number; record: { result: string; at: string } };
type Commit = { pk: string; epoch: number; outcome: string };
type Journaled = { pk: string; step: string; epoch: number };

/**
 * Which of the writes matching the record an entry kept put it there. Two attempts may write
 * the same record (same result, same millisecond): then the later epoch's did. The earlier one
 * could not have landed first, or the later attempt, claiming after it, would have found the
 * step journaled and replayed it instead of running and writing it; after that claim the earlier
 * attempt's writes are fenced off.
 */
function keptWrite(candidates: readonly JournalWrite[]): JournalWrite | undefined {
  return candidates.reduce<JournalWrite | undefined>(
    (kept, write) => (kept === undefined || write.epoch > kept.epoch ? write : kept),
    undefined,
  );
}

/**
 * What the notifier's workers reported about their steps — each claim's epoch, each effect
 * before it went out, each journal write and lease-holding commit, each freeze's tally — and
 * the invariants it proves against the inbox entries a run left: no step ran again after its
 * journal write, no commit by a worker that had lost its lease, every write of a worker whose
 * lease was taken over refused. Reports of one worker arrive in order (one pipe each).
 *
 * @example
 * ```ts
 * evidence.record(workerId, report); // while the run goes on
 * const results = evidence.check(notifierEntries);
 * ```
 */
export class StepEvidence {
  readonly #effects: Effect[] = [];
  readonly #journalWrites: JournalWrite[] = [];
  readonly #commits: Commit[] = [];
  readonly #journaled: Journaled[] = [];
  readonly #unknown: string[] = [];
  readonly #stale = { takeovers: 0, refused: 0, applied: 0 };
  claims = 0;
  #seq = 0;

  /** Every report, one JSON line each with its worker, for a closer look after the run. */
  readonly trace: string[] = [];

  /** A worker's step report. */
  record(worker: number, report: StepReport): void {
    const seq = this.#seq++;
    this.trace.push(JSON.stringify({ worker, seq, ...report }));
    if (report.type === 'claimed') this.claims++;
    else if (report.type === 'effect') this.#effects.push({ ...report, worker, seq });
    else if (report.type === 'journalWrite') this.#journalWrites.push({ ...report, worker, seq });
    else if (report.type === 'journaled') this.#journaled.push(report);
    else if (report.type === 'commit') this.#commits.push(report);
    else if (report.type === 'unknownEntryWrite') this.#unknown.push(report.detail);
  }

  /** A worker killed at point 10: how its writes fared after its resume. */
  recordTakeover(staleWrites: NonNullable<CrashReport['staleWrites']>): void {
    this.#stale.takeovers++;
    this.#stale.refused += staleWrites.refused;
    this.#stale.applied += staleWrites.applied;
  }

  /** Effects reported for a step: each one a call that may have reached the downstream. */
  effects(step: string): number {
    return this.#effects.filter((effect) => effect.step === step).length;
  }

  /**
   * Per event id: the emails beyond the first that the run may have sent — every reported send
   * but the journaled one belongs to an attempt stopped between its email and its journal write
   * (killed, frozen, or its answer or its journal write lost).
   */
  extraEmailAllowance(consumer: string): Map<string, number> {
    const sends = new Map<string, number>();
    for (const effect of this.#effects.filter((e) => e.step === 'email')) {
      const eventId = effect.pk.slice(consumer.length + 1);
      sends.set(eventId, (sends.get(eventId) ?? 0) + 1);
    }
    return new Map([...sends].map(([eventId, n]) => [eventId, Math.max(0, n - 1)]));
  }

  /** The invariants, against the notifier's inbox entries after the run. */
  check(entries: readonly Item[]): InvariantResult[] {
    return [this.#noRerun(entries), this.#noStaleCommit(entries), this.#takeoversRefused()];
  }

  #noRerun(entries: readonly Item[]): InvariantResult {
    const problems: string[] = [];
    let journaled = 0;
    for (const entry of entries) {
      const pk = String(entry.pk);
      const steps = (entry.steps ?? {}) as Record<string, { result?: string; at?: string }>;
      for (const [step, kept] of Object.entries(steps)) {
        journaled++;
        const writer = keptWrite(
          this.#journalWrites.filter(
            (w) =>
              w.pk === pk &&
              w.step === step &&
              w.record.at === kept.at &&
              w.record.result === kept.result,
          ),
        );
        if (writer === undefined) {
          problems.push(`${pk} ${step}: journaled by no reported write`);
          continue;
        }
        // Every write known applied: the kept record's, and each one whose answer came back.
        const epochs = new Set([
          writer.epoch,
          ...this.#journaled.filter((j) => j.pk === pk && j.step === step).map((j) => j.epoch),
        ]);
        if (epochs.size > 1)
          problems.push(
            `${pk} ${step}: journaled by ${epochs.size} attempts (epochs ${[...epochs].join(', ')})`,
          );
        const first = Math.min(...epochs);
        const firstWrite = this.#journalWrites.find(
          (w) => w.pk === pk && w.step === step && w.epoch === first,
        );
        const reruns = this.#effects.filter(
          (e) =>
            e.pk === pk &&
            e.step === step &&
            (e.epoch === undefined ||
              e.epoch > first ||
              (e.epoch === first && firstWrite !== undefined && e.seq > firstWrite.seq)),
        );
        if (reruns.length > 0)
          problems.push(
            `${pk} ${step}: ran again after epoch ${first} journaled it, by ${reruns
              .map((e) => `worker ${e.worker} epoch ${e.epoch}`)
              .join(', ')}`,
          );
      }
    }
    if (this.#unknown.length > 0)
      problems.push(
        `entry writes the watch cannot tell apart: ${this.#unknown.slice(0, 2).join('; ')}`,
      );
    return {
      name: 'steps: no step ran again after its journal write (by a later attempt or by the one that wrote it)',
      holds: problems.length === 0 && journaled > 0,
      detail:
        problems.length > 0
          ? problems.slice(0, 3).join('; ')
          : `${journaled} journaled steps, ${this.#effects.length} effects reported, ${this.claims} claims`,
    };
  }

  #noStaleCommit(entries: readonly Item[]): InvariantResult {
    const finalEpoch = new Map(entries.map((e) => [String(e.pk), Number(e.leaseEpoch)]));
    const committed = this.#commits.filter((c) => c.outcome === 'committed');
    const stale = committed.filter((c) => c.epoch !== finalEpoch.get(c.pk));
    const refused = this.#commits.filter((c) => c.outcome === 'refused').length;
    return {
      name: 'steps: no commit by a worker that had lost its lease (each commit is the last claim’s)',
      holds: stale.length === 0 && committed.length > 0,
      detail: stale.length
        ? stale
            .slice(0, 3)
            .map(
              (c) =>
                `${c.pk} committed by epoch ${c.epoch}, last claimed by ${finalEpoch.get(c.pk)}`,
            )
            .join('; ')
        : `${committed.length} commits with a lease, ${refused} refused by the fence or the entry`,
    };
  }

  #takeoversRefused(): InvariantResult {
    const { takeovers, refused, applied } = this.#stale;
    return {
      name: 'lease taken over in a freeze: every later write of the frozen worker refused (point 10)',
      holds: takeovers > 0 && applied === 0 && refused >= takeovers,
      detail: `${takeovers} takeovers: ${refused} writes refused, ${applied} applied`,
    };
  }
}
