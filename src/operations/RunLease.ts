import { errorTypeName } from '../errors/errorText.js';
import { InboxError } from '../errors.js';

/**
 * The lock that keeps one run at a time on a DLQ (`OperationLock` in the inbox table): taken at
 * the start, renewed while the run works, released at the end.
 *
 * @example
 * ```ts
 * const lock: RunLock = new OperationLock(client, tableName, operationLockPk('dlq', arn), operationId);
 * ```
 */
export interface RunLock {
  /** Takes the lease until `nowMillis + leaseMillis`; false when another run holds a live one. */
  acquire(nowMillis: number, leaseMillis: number): Promise<boolean>;
  /** Extends this run's lease; false when the lock is no longer this run's. */
  renew(nowMillis: number, leaseMillis: number): Promise<boolean>;
  /** Gives the lease back, if this run still holds it. */
  release(): Promise<void>;
}

/**
 * How long a run's lock holds unrenewed: two minutes, renewed every 40 s while the run works
 * (before each message, each send or delete, and during a wait for `--rate`). A run killed
 * outright (SIGKILL, a closed laptop) cannot release it: the next run is refused until it lapses,
 * at most this long after the killed run's last renewal.
 */
export const LOCK_LEASE_MILLIS = 120_000;

/**
 * Another run holds the DLQ's lock: this one did not start.
 *
 * @example
 * ```ts
 * if (error instanceof RedriveLockedError) console.error(`${error.queueArn} is being redriven`);
 * ```
 */
export class RedriveLockedError extends InboxError {
  static override readonly errorName: string = 'RedriveLockedError';
  constructor(readonly queueArn: string) {
    super(
      `another run of the redrive holds the lock of ${queueArn} (an item in the inbox table): run again once it ends, or after its lease lapses`,
    );
  }
}

/**
 * A run's hold on its lock: taken with {@link takeLease}, kept by {@link RunLease.hold} before
 * each message and each send or delete. It renews the lease once a third of it has passed, so
 * a run longer than the lease keeps it; a renewal that finds the lock another run's ends the
 * hold for good (a run that stalled past its lease lost it, and must not act on as if it held it).
 *
 * @example
 * ```ts
 * const lease = await takeLease(lock, LOCK_LEASE_MILLIS, runtime.now);
 * if (!(await lease.hold())) return; // stop: another run holds the DLQ
 * ```
 */
export interface RunLease {
  /** True while this run holds the lock (renewing it when due); false once it lost it. */
  hold(): Promise<boolean>;
  /** Why the hold ended, once it did. */
  readonly lost?: string;
  release(): Promise<void>;
}

/**
 * Takes `lock` for `leaseMillis`, or throws {@link RedriveLockedError} when another run holds
 * it. Without a lock, a hold that always holds.
 *
 * @example
 * ```ts
 * const lease = await takeLease(lock, LOCK_LEASE_MILLIS, () => Date.now(), queue.arn);
 * ```
 */
export async function takeLease(
  lock: RunLock | undefined,
  leaseMillis: number,
  now: () => number,
  queueArn: string,
): Promise<RunLease> {
  if (lock === undefined) return { hold: async () => true, release: async () => {} };
  const takenAt = now();
  if (!(await lock.acquire(takenAt, leaseMillis))) throw new RedriveLockedError(queueArn);
  return heldLease(lock, leaseMillis, now, takenAt);
}

function heldLease(
  lock: RunLock,
  leaseMillis: number,
  now: () => number,
  takenAtMillis: number,
): RunLease {
  let untilMillis = takenAtMillis + leaseMillis;
  let renewAtMillis = takenAtMillis + leaseMillis / 3;
  const lease: { -readonly [K in keyof RunLease]: RunLease[K] } = {
    async hold() {
      if (lease.lost !== undefined) return false;
      const nowMillis = now();
      if (nowMillis < renewAtMillis) return true;
      let renewed: boolean;
      try {
        renewed = await lock.renew(nowMillis, leaseMillis);
      } catch (error) {
        // No answer, or throttled: tried again at the next message while the lease lasts.
        if (now() < untilMillis) return true;
        lease.lost = `its lock's lease lapsed and could not be renewed (${errorTypeName(error)})`;
        return false;
      }
      if (!renewed) {
        lease.lost = `another run took its lock after its lease of ${leaseMillis} ms lapsed unrenewed`;
        return false;
      }
      untilMillis = nowMillis + leaseMillis;
      renewAtMillis = nowMillis + leaseMillis / 3;
      return true;
    },
    release: () => lock.release(),
  };
  return lease;
}
