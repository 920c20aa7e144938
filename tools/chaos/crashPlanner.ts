import { seededRandom } from '../local/demoTraffic.js';
import type { ChaosConsumer } from './ChaosTraffic.js';
import { CrashPoint, RELAY_CRASH_POINTS, STEP_CRASH_POINTS } from './workerProtocol.js';

/** The next worker's crash plan: its point and how many occurrences it passes first. */
export type CrashPlanner = (allowWaiting: boolean) => { point: CrashPoint; crashAfter: number };

// Points 1–4 and 6 can hit any consumer; two consumers hold copies of one event at once only
// on a standard queue (a FIFO queue hands out one message of a group at a time); points 7–10
// are inside steps, which only the notifier has; 11 and 12 are the relay's; 13 needs a commit
// that publishes, which only the ledger makes.
const TRANSACTION_POINTS = Object.values(CrashPoint).filter(
  (p) =>
    !STEP_CRASH_POINTS.includes(p) &&
    !RELAY_CRASH_POINTS.includes(p) &&
    p !== CrashPoint.PublishCommitted,
);
/** The crash points each consumer's workers may be given. */
export const POINTS: Readonly<Record<ChaosConsumer, readonly CrashPoint[]>> = {
  ledger: [
    ...TRANSACTION_POINTS.filter((point) => point !== CrashPoint.ConcurrentCopies),
    CrashPoint.PublishCommitted,
  ],
  inventory: TRANSACTION_POINTS,
  counter: TRANSACTION_POINTS,
  notifier: [...TRANSACTION_POINTS, ...STEP_CRASH_POINTS],
};
/** The chaos run's consumers, in the order their workers start. */
export const CONSUMERS = Object.keys(POINTS) as ChaosConsumer[];
/** Points a worker reaches without waiting for another worker: it may pass a few first. */
export const REPEATABLE: ReadonlySet<CrashPoint> = new Set([
  CrashPoint.BeforeTransaction,
  CrashPoint.AfterCommit,
  CrashPoint.MidBatch,
  CrashPoint.HangingHandler,
  CrashPoint.AfterEffect,
  CrashPoint.AfterJournal,
  CrashPoint.DuringHeartbeat,
  CrashPoint.RelayAfterSend,
  CrashPoint.RelayMidBatch,
  CrashPoint.PublishCommitted,
]);

/**
 * A seeded sequence of crash plans for one consumer's workers (or the relay's: `points` are
 * those the process can reach). It picks, at random, among the points with the fewest crashes
 * so far (so they stay balanced though points 4, 5 and 10 take seconds to reach). While every
 * waiting slot is taken, a new worker gets a quick point but passes 5–9 occurrences first: it
 * serves as the receiver the waiting ones need.
 */
export function planner(
  points: readonly CrashPoint[],
  seed: number,
  crashes: ReadonlyMap<CrashPoint, number>,
): CrashPlanner {
  const random = seededRandom(seed);
  return (allowWaiting: boolean) => {
    const allowed = points.filter((point) => allowWaiting || REPEATABLE.has(point));
    const fewest = Math.min(...allowed.map((point) => crashes.get(point) ?? 0));
    const least = allowed.filter((point) => (crashes.get(point) ?? 0) === fewest);
    const point = least[Math.floor(random() * least.length)] ?? CrashPoint.BeforeTransaction;
    if (!REPEATABLE.has(point)) return { point, crashAfter: 0 };
    const receiverPasses = allowWaiting ? 0 : 5 + Math.floor(random() * 5);
    return { point, crashAfter: Math.floor(random() * 2) + receiverPasses };
  };
}
