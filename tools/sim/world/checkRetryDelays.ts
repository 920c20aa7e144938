import { InboxMetric, LEASE_LIMITS, RETRY_LIMITS } from '../../../src/constants/values.js';
import type { Invocation } from '../lambda/SimLambda.js';
import type { VisibilityChange } from '../sqs/SimQueue.js';
import type { ChosenDelay } from './chosenDelays.js';
import { Planted } from './paymentWorkload.js';
import type { WorldConfig } from './WorldConfig.js';
import type { EventOf, WorldObservation } from './WorldObservation.js';

/** Kernel time is fractional millis: a difference this small is the arithmetic's, not a delay. */
const SLACK_MILLIS = 1e-6;

/** The planted failures the schema refuses before any request: permanent at every receive. */
const REFUSED_BY_SCHEMA: ReadonlySet<string> = new Set([Planted.Poison, Planted.Invalid]);

/**
 * The per-message retry delays (the consumer's `retry` option), from the delays its processor
 * logged, the visibility changes SQS applied, and the receives:
 * - retry delays: each container logs exactly the delays it counts in `InboxRetryDelaySeconds`;
 *   a delay SQS accepted is the one it applied (unless the receive's visibility
 *   had already run out, when SQS changes nothing), and the record is not received again before
 *   it ends — unless a later change of the same receive (a duplicated request) set another;
 * - retry caps: a backoff delay on receive n lies in [1, min(maxDelaySeconds, first × 2^(n−1))],
 *   a lease-held one within the longest lease plus the clocks' skews and the margin; none is
 *   given on a last receive, to a planted permanent failure, or without `retry` (then SQS changes
 *   no visibility at all), and no change SQS applied exceeds the largest delay allowed.
 *
 * @example
 * ```ts
 * checkRetryDelays(world, eventOf, failures);
 * ```
 */
export function checkRetryDelays(world: WorldObservation, eventOf: EventOf, failures: string[]) {
  const invocations = new Map(world.invocations.map((invocation) => [invocation.id, invocation]));
  const receives = receivesByMessage(world.invocations);
  const changes = changesByMessage(world.queue.visibilityChanges);
  const bodies = new Map(world.queue.history.map((message) => [message.messageId, message.body]));
  checkAppliedChanges(world, failures);
  checkDelaysCounted(world, failures);
  for (const delay of world.retryDelays) {
    const invocation = invocations.get(delay.invocationId ?? -1);
    const receiveCount = invocation?.receiveCounts.get(delay.messageId);
    if (invocation === undefined || receiveCount === undefined) {
      failures.push(
        `retry delays: ${delay.messageId} was given ${delay.delaySeconds} s (${delay.cause}) at ${seconds(delay.atMillis)} by invocation ${delay.invocationId}, which never received it`,
      );
      continue;
    }
    const event = eventOf(bodies.get(delay.messageId) ?? '');
    const what = `${delay.messageId} (${event?.eventId ?? 'no event'}, ${event?.planted ?? 'unknown'})`;
    const cap = capFailure(world.config, delay, receiveCount, event?.planted);
    if (cap !== undefined) failures.push(`retry caps: ${what} ${cap}`);
    const held = heldBackFailure(world, delay, invocation, {
      receiveCount,
      changes: changes.get(delay.messageId) ?? [],
      receivedAgainMillis: receives.get(delay.messageId)?.get(receiveCount + 1),
    });
    if (held !== undefined) failures.push(`retry delays: ${what} ${held}`);
  }
}

/** Without `retry` SQS changes no visibility; with it, no change exceeds the largest delay. */
function checkAppliedChanges(world: WorldObservation, failures: string[]): void {
  const { retry } = world.config;
  const largestSeconds =
    retry === undefined
      ? 0
      : Math.max(retry.backoff?.maxDelaySeconds ?? 0, leaseHeldCapSeconds(world.config));
  for (const change of world.queue.visibilityChanges) {
    const hiddenSeconds = secondsBetween(change.atMillis, change.visibleAtMillis);
    if (retry !== undefined && hiddenSeconds <= largestSeconds) continue;
    failures.push(
      retry === undefined
        ? `retry caps: SQS changed the visibility of ${change.messageId} at ${seconds(change.atMillis)} (to ${hiddenSeconds} s), though the consumer has no retry option`
        : `retry caps: SQS hid ${change.messageId} for ${hiddenSeconds} s at ${seconds(change.atMillis)}, past the largest delay the retry option allows (${largestSeconds} s)`,
    );
  }
}

/**
 * Each container's logged delays are the values it gave `InboxRetryDelaySeconds`: the two
 * report one event, so neither lags the other (and a log line the world no longer recognises
 * shows here, instead of leaving the delays unjudged).
 */
function checkDelaysCounted(world: WorldObservation, failures: string[]): void {
  const logged = new Map<string, number[]>();
  for (const delay of world.retryDelays) {
    logged.set(delay.actor, [...(logged.get(delay.actor) ?? []), delay.delaySeconds]);
  }
  const counted = new Map<string, number[]>();
  for (const { actor, name, value } of world.metrics) {
    if (name === InboxMetric.RetryDelaySeconds) {
      counted.set(actor, [...(counted.get(actor) ?? []), value]);
    }
  }
  for (const actor of new Set([...logged.keys(), ...counted.keys()])) {
    const inLog = sorted(logged.get(actor));
    const inMetric = sorted(counted.get(actor));
    if (inLog.join() === inMetric.join()) continue;
    failures.push(
      `retry delays: ${actor} logged delays of [${inLog.join(', ')}] s, but counted [${inMetric.join(', ')}] s in ${InboxMetric.RetryDelaySeconds}`,
    );
  }
}

function sorted(values: readonly number[] = []): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Why the delay breaks its cap (after the record's id), or undefined when it keeps it. */
function capFailure(
  config: WorldConfig,
  delay: ChosenDelay,
  receiveCount: number,
  planted: Planted | undefined,
): string | undefined {
  const given = `was given ${delay.delaySeconds} s (${delay.cause}) on receive ${receiveCount} by invocation ${delay.invocationId}`;
  const { retry } = config;
  if (retry === undefined) return `${given}, though the consumer has no retry option`;
  if (receiveCount >= config.maxReceiveCount) {
    return `${given}, its last (maxReceiveCount ${config.maxReceiveCount}), which is dead-lettered instead`;
  }
  if (planted !== undefined && REFUSED_BY_SCHEMA.has(planted)) {
    return `${given}, though its failure is permanent (the schema refuses it)`;
  }
  if (delay.cause === 'leaseHeld') {
    const capSeconds = leaseHeldCapSeconds(config);
    return delay.delaySeconds <= capSeconds && delay.delaySeconds >= 0
      ? undefined
      : `${given}, past the longest lease (function timeout ${config.functionTimeoutMillis} ms + lease skew ${LEASE_LIMITS.clockSkewMillis} ms + 2 × clock skew ${config.clockSkewMillis} ms) plus the margin: ${capSeconds} s`;
  }
  const { backoff } = retry;
  if (delay.cause !== 'backoff' || backoff === undefined) {
    return `${given}, though the retry option has no ${delay.cause === 'backoff' ? 'backoff' : `cause ${delay.cause}`}`;
  }
  const exponent = receiveCount - 1;
  const stepSeconds = Math.min(backoff.maxDelaySeconds, backoff.firstDelaySeconds * 2 ** exponent);
  return delay.delaySeconds >= 1 && delay.delaySeconds <= stepSeconds
    ? undefined
    : `${given}, outside its backoff step [1, min(maxDelaySeconds ${backoff.maxDelaySeconds}, ${backoff.firstDelaySeconds} × 2^${exponent})] = [1, ${stepSeconds}] s`;
}

/**
 * The longest delay a copy refused by a live lease may be given: a lease lasts at most the
 * invocation's remaining time (the function timeout) plus the library's allowance for skew,
 * written by a clock up to `clockSkewMillis` ahead and read by one as far behind; then the margin.
 */
export function leaseHeldCapSeconds(config: WorldConfig): number {
  const leaseMillis =
    config.functionTimeoutMillis + LEASE_LIMITS.clockSkewMillis + 2 * config.clockSkewMillis;
  const marginSeconds =
    config.retry?.leaseHeldMarginSeconds ?? RETRY_LIMITS.defaultLeaseHeldMarginSeconds;
  return Math.ceil(leaseMillis / 1000) + marginSeconds;
}

/**
 * Why the record came back too soon (after its id), or undefined: the change SQS applied for
 * the delay (the receive's last one before the processor logged it) hides it exactly that long,
 * and its next receive comes no sooner than the receive's last change allows.
 */
function heldBackFailure(
  world: WorldObservation,
  delay: ChosenDelay,
  invocation: Invocation,
  receipt: {
    readonly receiveCount: number;
    readonly changes: readonly VisibilityChange[];
    readonly receivedAgainMillis: number | undefined;
  },
): string | undefined {
  const { receiveCount, receivedAgainMillis } = receipt;
  const given = `was given ${delay.delaySeconds} s (${delay.cause}) on receive ${receiveCount} by invocation ${invocation.id} at ${seconds(delay.atMillis)}`;
  // The changes made with this receive's handle: from the receive up to the next one.
  const held = receipt.changes.filter(
    (change) =>
      change.atMillis >= invocation.startedMillis &&
      (receivedAgainMillis === undefined || change.atMillis <= receivedAgainMillis),
  );
  const applied = held.filter((change) => change.atMillis <= delay.atMillis).at(-1);
  if (applied === undefined) {
    // SQS changes nothing once the receive's visibility timeout has run out.
    const expiredMillis = invocation.startedMillis + world.queue.visibilityTimeoutMillis;
    return expiredMillis <= delay.atMillis
      ? undefined
      : `${given}, but SQS applied no change while the receive hid it (until ${seconds(expiredMillis)})`;
  }
  const appliedSeconds = secondsBetween(applied.atMillis, applied.visibleAtMillis);
  if (appliedSeconds !== delay.delaySeconds) {
    return `${given}, but SQS hid it for ${appliedSeconds} s from ${seconds(applied.atMillis)}`;
  }
  const last = held.at(-1) ?? applied;
  const dueMillis =
    last === applied ? applied.atMillis + delay.delaySeconds * 1000 : last.visibleAtMillis;
  if (receivedAgainMillis === undefined || receivedAgainMillis >= dueMillis - SLACK_MILLIS) {
    return undefined;
  }
  return `${given}, applied at ${seconds(applied.atMillis)}, yet received again at ${seconds(receivedAgainMillis)}, before ${seconds(dueMillis)}${last === applied ? '' : ' (a later change of the receive)'}`;
}

/**
 * When each message was received, by its receive count: the event source mapping invokes the
 * function with what it received at once, so an invocation starts at its records' receive.
 */
function receivesByMessage(invocations: readonly Invocation[]): Map<string, Map<number, number>> {
  const receives = new Map<string, Map<number, number>>();
  for (const invocation of invocations) {
    for (const [messageId, receiveCount] of invocation.receiveCounts) {
      const byCount = receives.get(messageId) ?? new Map<number, number>();
      byCount.set(receiveCount, invocation.startedMillis);
      receives.set(messageId, byCount);
    }
  }
  return receives;
}

function changesByMessage(changes: readonly VisibilityChange[]): Map<string, VisibilityChange[]> {
  const byMessage = new Map<string, VisibilityChange[]>();
  for (const change of changes) {
    byMessage.set(change.messageId, [...(byMessage.get(change.messageId) ?? []), change]);
  }
  return byMessage;
}

/** The whole seconds from one world instant to another (a change's), to the nearest millisecond. */
function secondsBetween(fromMillis: number, toMillis: number): number {
  return Math.round(toMillis - fromMillis) / 1000;
}

/** World millis as seconds, the way the trace prints them. */
function seconds(millis: number): string {
  return `${(millis / 1000).toFixed(3)} s`;
}
