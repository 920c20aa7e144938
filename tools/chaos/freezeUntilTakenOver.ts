import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a frozen worker waits for another worker to claim its entry, and how often it looks. */
const TAKEOVER_WAIT_MILLIS = 20_000;
const POLL_MILLIS = 200;

/**
 * Point 10: stops a worker (SIGSTOP) that holds a lease of epoch `epoch` on `pk`, as a long
 * garbage-collection pause or a starved container would, until another worker's claim raises
 * the entry's epoch (its lease lapsed meanwhile), then resumes it (SIGCONT). Returns whether
 * the entry was taken over within the wait; a worker no longer alive is left alone.
 *
 * @example
 * ```ts
 * const takenOver = await freezeUntilTakenOver(child, pk, 3, (pk) => readEpoch(pk));
 * ```
 */
export async function freezeUntilTakenOver(
  child: ChildProcess,
  pk: string,
  epoch: number,
  leaseEpochOf: (pk: string) => Promise<number | undefined>,
): Promise<boolean> {
  const alive = () => child.exitCode === null && child.signalCode === null;
  if (!alive()) return false;
  child.kill('SIGSTOP');
  let takenOver = false;
  try {
    const deadline = Date.now() + TAKEOVER_WAIT_MILLIS;
    while (!takenOver && Date.now() < deadline && alive()) {
      await sleep(POLL_MILLIS);
      takenOver = ((await leaseEpochOf(pk).catch(() => undefined)) ?? epoch) > epoch;
    }
  } finally {
    if (alive()) child.kill('SIGCONT');
  }
  return takenOver;
}
