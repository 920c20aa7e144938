import type { Prng } from '../kernel/Prng.js';
import { WorldConsumer } from './WorldConsumer.js';

/**
 * How the world's operator redrives its DLQ, beyond how many times (`redrives`).
 *
 * @example
 * ```ts
 * if (config.redriveKind === 'inbox-aware' && config.redriveSelection) chooseSelection();
 * ```
 */
export interface OperatorRedriveSettings {
  /**
   * How the operator redrives: `console`, every DLQ message back as SQS's redrive does (the
   * default), or `inbox-aware`, by `sqs-inbox dlq redrive --apply` (the library's own run).
   */
  readonly redriveKind?: 'console' | 'inbox-aware';
  /** The inbox-aware redrive's `--include-permanent`: the operator says the fix is deployed. */
  readonly redriveIncludesPermanent?: boolean;
  /**
   * The inbox-aware redrive's lock, made short (the real one is an hour) so that a run outlives
   * it, with two runs started a few seconds apart and an operator whose process stalls longer
   * than the lease at some of its waits: the setting in which a run must renew its lock, and stop
   * once another run took it.
   */
  readonly redriveLock?: { readonly leaseMillis: number; readonly stallMillis: number };
  /**
   * The inbox-aware redrive handles part of the DLQ, chosen when the run starts as an operator
   * does from the DLQ's report: some of the reasons it holds (`--reason`), or what was sent since
   * one of its messages (`--since`). Default all of it.
   */
  readonly redriveSelection?: 'reason' | 'since';
  /**
   * The operator tells the inbox-aware redrive that the consumer keys by the SQS message id
   * (`--key-is-message-id`), as for a consumer keyed by `redriveUnsafeMessageIdKey`. The world's
   * consumer keys by its event id all the same (its other invariants rest on that): the redrive
   * knows only what it is told.
   */
  readonly redriveKeyIsMessageId?: boolean;
  /**
   * The operator's process is suspended this long before each receive of its inbox-aware run (a
   * laptop's lid closed between batches): the run outlasts the DLQ's five-minute hold of what it
   * received, so that only the run's extensions of its holds keep that hidden. Under 200 s, so
   * that an extension, due after a third of a hold, always comes before the hold ends.
   */
  readonly redrivePauseMillis?: number;
}

/** The settings of the world at large that a redrive's draw changes. */
interface Overrides {
  readonly ttlSeconds?: number;
  readonly redrives?: number;
  readonly events?: number;
  readonly keyReuseRate?: number;
  readonly journalThrottling?: number;
  readonly maxReceiveCount?: number;
  readonly redriveIncludesPermanent?: boolean;
}

/** The share of worlds with redrives whose operator uses the inbox-aware redrive. */
const INBOX_AWARE_REDRIVE_SHARE = 0.5;

/** Of the inbox-aware worlds without a short lock: those whose runs select part of the DLQ, … */
const SELECTION_SHARE = 0.6;
/** … of those with the long TTL too, whose operator says the consumer keys by the message id, … */
const MESSAGE_ID_KEY_SHARE = 0.3;
/** … of those without a short lock, whose operator's process pauses before each receive, … */
const PAUSE_SHARE = 0.15;
/** … and of the notifier's, those whose runs meet unfinished journals of reused keys. */
const JOURNALS_SHARE = 0.5;

/**
 * The inbox-aware redrive in half of the worlds with redrives; in half of those the operator
 * includes permanent failures, and in a third the consumer's TTL is a minute — shorter than its
 * messages wait in the DLQ, the setting in which an absent entry proves nothing and the redrive
 * must keep what it cannot vouch for. Then, drawn after them: a short lock, a selection, a key
 * said to be the message id, pauses (with one run only, so that no second run waits out a long
 * one's lock), and in notifier worlds the unfinished journals of reused keys.
 *
 * @example
 * ```ts
 * const config = { ...drawn, ...drawRedriveKind(random, drawn) };
 * ```
 */
export function drawRedriveKind(
  random: Prng,
  drawn: { readonly redrives: number; readonly consumer: WorldConsumer; readonly events: number },
): OperatorRedriveSettings & Overrides {
  if (drawn.redrives === 0 || !random.chance(INBOX_AWARE_REDRIVE_SHARE)) return {};
  const includesPermanent = random.chance(0.5);
  const shortTtl = random.chance(1 / 3);
  // Drawn after the kind, so that the worlds drawn before the lock was renewed stay as they were.
  const lock =
    drawn.redrives === 2 && random.chance(0.5)
      ? {
          leaseMillis: random.pick([600, 2_000, 5_000]),
          stallMillis: random.pick([1_000, 4_000, 12_000]),
        }
      : undefined;
  // Drawn last, for the same reason: the decisions the runs above never reach (issue 32). A
  // selection not where a short lock was drawn, a message-id key neither there nor where a short
  // TTL was: their runs would have less to act on, and those worlds are for the lock's renewal
  // and for stale absences.
  const selection =
    lock === undefined && random.chance(SELECTION_SHARE)
      ? random.pick(['reason', 'since'] as const)
      : undefined;
  const keyIsMessageId = lock === undefined && !shortTtl && random.chance(MESSAGE_ID_KEY_SHARE);
  const pauseMillis =
    lock === undefined && random.chance(PAUSE_SHARE) ? random.pick([160_000, 190_000]) : undefined;
  const journals = drawn.consumer === WorldConsumer.Notifier && random.chance(JOURNALS_SHARE);
  return {
    redriveKind: 'inbox-aware',
    ...(includesPermanent ? { redriveIncludesPermanent: true } : {}),
    ...(shortTtl ? { ttlSeconds: 60 } : {}),
    ...(lock ? { redriveLock: lock } : {}),
    ...(selection ? { redriveSelection: selection } : {}),
    ...(keyIsMessageId ? { redriveKeyIsMessageId: true } : {}),
    ...(pauseMillis === undefined ? {} : { redrivePauseMillis: pauseMillis, redrives: 1 }),
    ...(journals ? meetingJournals(drawn) : {}),
  };
}

/**
 * A notifier world whose runs meet another payload's unfinished journal under a DLQ message's
 * key: keys reused (a second payload under an event's id), journal writes throttled while faults
 * last, so that attempts fail after a step, and two receives only, so that such an attempt is
 * dead-lettered with its journal left. The second payload, refused by that journal, is
 * dead-lettered for a permanent error, which the operator includes; the TTL is the long one, so
 * that the journal still lives when the run reads it.
 */
function meetingJournals(drawn: { readonly events: number }): Overrides {
  return {
    keyReuseRate: 0.4,
    journalThrottling: 0.9,
    maxReceiveCount: 2,
    redriveIncludesPermanent: true,
    ttlSeconds: 23 * 86_400,
    events: Math.max(drawn.events, 8),
  };
}
