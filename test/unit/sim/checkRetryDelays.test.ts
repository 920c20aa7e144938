import { describe, expect, it } from 'vitest';
import { InboxMetric } from '../../../src/constants/index.js';
import { Prng } from '../../../tools/sim/kernel/Prng.js';
import type { Invocation } from '../../../tools/sim/lambda/SimLambda.js';
import type { VisibilityChange } from '../../../tools/sim/sqs/SimQueue.js';
import {
  checkRetryDelays,
  leaseHeldCapSeconds,
} from '../../../tools/sim/world/checkRetryDelays.js';
import type { ChosenDelay } from '../../../tools/sim/world/chosenDelays.js';
import type { ObservedMetric } from '../../../tools/sim/world/consumerFunction.js';
import { type PlannedEvent, Planted } from '../../../tools/sim/world/paymentWorkload.js';
import { drawWorldConfig, type WorldConfig } from '../../../tools/sim/world/WorldConfig.js';
import type { WorldObservation } from '../../../tools/sim/world/WorldObservation.js';

/**
 * A standard queue with a 30 s visibility timeout, four receives, a 10 s function without clock
 * skew, and a backoff from 2 s capped at 5 s: receive 1 may wait 1–2 s, receive 2 1–4 s, receive
 * 3 1–5 s (its step, 8 s, is past the cap).
 */
const config: WorldConfig = {
  ...drawWorldConfig(new Prng(1)),
  fifo: false,
  maxReceiveCount: 4,
  functionTimeoutMillis: 10_000,
  visibilityTimeoutMillis: 30_000,
  clockSkewMillis: 0,
  retry: { backoff: { firstDelaySeconds: 2, maxDelaySeconds: 5 } },
};
const MESSAGE = 'ledger-1';
const BODY = '{"eventId":"evt-1"}';

function invocation(id: number, startedMillis: number, receiveCount: number): Invocation {
  return {
    id,
    actor: `lambda-${id}`,
    messageIds: [MESSAGE],
    receiveCounts: new Map([[MESSAGE, receiveCount]]),
    startedMillis,
    endedMillis: startedMillis + 500,
    faults: new Set(),
    faultedRequests: [],
    deadlineMillis: undefined,
    end: 'response',
    failedMessageIds: [MESSAGE],
  };
}

/** A change SQS applied at `atMillis` hiding the message for `seconds`. */
const hid = (atMillis: number, seconds: number): VisibilityChange => ({
  messageId: MESSAGE,
  atMillis,
  visibleAtMillis: atMillis + seconds * 1000,
});

/** The delay invocation 1 logged at 1.4 s, once SQS answered. */
const chosen = (delaySeconds: number, cause = 'backoff'): ChosenDelay => ({
  actor: 'lambda-1',
  invocationId: 1,
  messageId: MESSAGE,
  delaySeconds,
  cause,
  atMillis: 1_400,
});

/**
 * The failures of a world whose message was received at 1 s (receive `receiveCount`), given
 * `delay` by that invocation, with the changes SQS applied and, if given, the next receive.
 */
function failuresOf(world: {
  readonly delays: readonly ChosenDelay[];
  readonly changes: readonly VisibilityChange[];
  readonly receivedAgainMillis?: number;
  readonly receiveCount?: number;
  readonly config?: WorldConfig;
  readonly planted?: Planted;
  /** What the containers counted in `InboxRetryDelaySeconds`; default each delay logged. */
  readonly metrics?: readonly ObservedMetric[];
}): string[] {
  const receiveCount = world.receiveCount ?? 2;
  const invocations = [invocation(1, 1_000, receiveCount)];
  if (world.receivedAgainMillis !== undefined) {
    invocations.push(invocation(2, world.receivedAgainMillis, receiveCount + 1));
  }
  const observation = {
    config: world.config ?? config,
    invocations,
    retryDelays: world.delays,
    metrics:
      world.metrics ??
      world.delays.map(({ actor, delaySeconds }) => ({
        actor,
        name: InboxMetric.RetryDelaySeconds,
        value: delaySeconds,
      })),
    queue: {
      visibilityTimeoutMillis: config.visibilityTimeoutMillis,
      visibilityChanges: world.changes,
      history: [{ messageId: MESSAGE, body: BODY }],
    },
  } as unknown as WorldObservation;
  const event = { eventId: 'evt-1', planted: world.planted ?? Planted.None } as PlannedEvent;
  const failures: string[] = [];
  checkRetryDelays(observation, (body) => (body === BODY ? event : undefined), failures);
  return failures;
}

describe('the retry-delays invariant: a record comes back no sooner than the delay SQS accepted for it', () => {
  it('passes a record hidden for its chosen delay and received again once it ended', () => {
    expect(
      failuresOf({ delays: [chosen(3)], changes: [hid(1_300, 3)], receivedAgainMillis: 4_300 }),
    ).toEqual([]);
  });

  it('fails a delay SQS applied with another length than the processor chose, naming both', () => {
    expect(
      failuresOf({ delays: [chosen(3)], changes: [hid(1_300, 0)], receivedAgainMillis: 1_350 }),
    ).toEqual([
      'retry delays: ledger-1 (evt-1, none) was given 3 s (backoff) on receive 2 by invocation 1 at 1.400 s, but SQS hid it for 0 s from 1.300 s',
    ]);
  });

  it('fails a record received again before its delay ended, with when it was applied and due', () => {
    expect(
      failuresOf({ delays: [chosen(3)], changes: [hid(1_300, 3)], receivedAgainMillis: 4_299 }),
    ).toEqual([
      'retry delays: ledger-1 (evt-1, none) was given 3 s (backoff) on receive 2 by invocation 1 at 1.400 s, applied at 1.300 s, yet received again at 4.299 s, before 4.300 s',
    ]);
  });

  it('judges the next receive by the last change of the receive (a duplicated request applied again later)', () => {
    const changes = [hid(1_300, 3), hid(2_000, 3)];

    expect(failuresOf({ delays: [chosen(3)], changes, receivedAgainMillis: 5_000 })).toEqual([]);
    expect(failuresOf({ delays: [chosen(3)], changes, receivedAgainMillis: 4_900 })).toEqual([
      'retry delays: ledger-1 (evt-1, none) was given 3 s (backoff) on receive 2 by invocation 1 at 1.400 s, applied at 1.300 s, yet received again at 4.900 s, before 5.000 s (a later change of the receive)',
    ]);
  });

  it('fails a delay SQS accepted but applied no change for while the receive still hid the record', () => {
    expect(failuresOf({ delays: [chosen(3)], changes: [] })).toEqual([
      'retry delays: ledger-1 (evt-1, none) was given 3 s (backoff) on receive 2 by invocation 1 at 1.400 s, but SQS applied no change while the receive hid it (until 31.000 s)',
    ]);
  });

  it('passes a delay SQS accepted as a no-op because the receive’s visibility had run out (AWS changes nothing then)', () => {
    const late: ChosenDelay = { ...chosen(3), atMillis: 31_000 };

    expect(failuresOf({ delays: [late], changes: [], receivedAgainMillis: 31_500 })).toEqual([]);
  });

  it('does not join a delay with a change made under an earlier receive', () => {
    expect(failuresOf({ delays: [chosen(3)], changes: [hid(900, 3)] })).toEqual([
      'retry delays: ledger-1 (evt-1, none) was given 3 s (backoff) on receive 2 by invocation 1 at 1.400 s, but SQS applied no change while the receive hid it (until 31.000 s)',
    ]);
  });

  it('fails a container whose logged delays are not the values it counted in InboxRetryDelaySeconds', () => {
    const counted = (value: number): ObservedMetric => ({
      actor: 'lambda-1',
      name: InboxMetric.RetryDelaySeconds,
      value,
    });
    const changes = [hid(1_300, 3)];

    expect(failuresOf({ delays: [chosen(3)], changes, metrics: [counted(3)] })).toEqual([]);
    expect(failuresOf({ delays: [chosen(3)], changes, metrics: [counted(3), counted(2)] })).toEqual(
      [
        'retry delays: lambda-1 logged delays of [3] s, but counted [2, 3] s in InboxRetryDelaySeconds',
      ],
    );
    expect(failuresOf({ delays: [], changes, metrics: [counted(3)] })).toEqual([
      'retry delays: lambda-1 logged delays of [] s, but counted [3] s in InboxRetryDelaySeconds',
    ]);
  });

  it('fails a delay logged by an invocation that never received the record', () => {
    expect(failuresOf({ delays: [{ ...chosen(3), invocationId: 9 }], changes: [] })).toEqual([
      'retry delays: ledger-1 was given 3 s (backoff) at 1.400 s by invocation 9, which never received it',
    ]);
  });
});

describe('the retry-caps invariant: no delay beyond what the retry option allows, none where it allows none', () => {
  /** The failures of a delay SQS applied as chosen, the record not received again. */
  const capFailures = (
    delay: ChosenDelay,
    world: { receiveCount?: number; planted?: Planted; config?: WorldConfig } = {},
  ) => failuresOf({ delays: [delay], changes: [hid(1_300, delay.delaySeconds)], ...world });

  it('passes backoff delays within the step of their receive, the cap included', () => {
    expect(capFailures(chosen(2), { receiveCount: 1 })).toEqual([]);
    expect(capFailures(chosen(4), { receiveCount: 2 })).toEqual([]);
    expect(capFailures(chosen(5), { receiveCount: 3 })).toEqual([]);
  });

  it('fails a backoff delay past its step, and one past maxDelaySeconds, naming the step', () => {
    expect(capFailures(chosen(3), { receiveCount: 1 })).toEqual([
      'retry caps: ledger-1 (evt-1, none) was given 3 s (backoff) on receive 1 by invocation 1, outside its backoff step [1, min(maxDelaySeconds 5, 2 × 2^0)] = [1, 2] s',
    ]);
    expect(capFailures(chosen(6), { receiveCount: 3 })).toEqual([
      'retry caps: ledger-1 (evt-1, none) was given 6 s (backoff) on receive 3 by invocation 1, outside its backoff step [1, min(maxDelaySeconds 5, 2 × 2^2)] = [1, 5] s',
    ]);
  });

  it('fails a backoff delay of 0 s (the least is 1 s)', () => {
    expect(capFailures(chosen(0), { receiveCount: 1 })[0]).toMatch(
      /^retry caps: ledger-1 .* was given 0 s \(backoff\) on receive 1 .*outside its backoff step \[1, /,
    );
  });

  it('fails a delay on the last receive, which the library dead-letters instead', () => {
    expect(capFailures(chosen(1), { receiveCount: 4 })).toEqual([
      'retry caps: ledger-1 (evt-1, none) was given 1 s (backoff) on receive 4 by invocation 1, its last (maxReceiveCount 4), which is dead-lettered instead',
    ]);
  });

  it('fails a delay given to a planted failure the schema refuses (a PermanentError)', () => {
    expect(capFailures(chosen(1), { receiveCount: 1, planted: Planted.Poison })).toEqual([
      'retry caps: ledger-1 (evt-1, poison) was given 1 s (backoff) on receive 1 by invocation 1, though its failure is permanent (the schema refuses it)',
    ]);
  });

  it('fails any delay, and any visibility change SQS applied, in a world without retry', () => {
    const { retry: _, ...withoutRetry } = config;

    expect(capFailures(chosen(1), { config: withoutRetry })).toEqual([
      'retry caps: SQS changed the visibility of ledger-1 at 1.300 s (to 1 s), though the consumer has no retry option',
      'retry caps: ledger-1 (evt-1, none) was given 1 s (backoff) on receive 2 by invocation 1, though the consumer has no retry option',
    ]);
  });

  it('fails a backoff delay in a world whose retry has no backoff', () => {
    const leaseOnly: WorldConfig = { ...config, retry: {} };

    expect(capFailures(chosen(1), { config: leaseOnly })).toEqual([
      'retry caps: ledger-1 (evt-1, none) was given 1 s (backoff) on receive 2 by invocation 1, though the retry option has no backoff',
    ]);
  });

  it('passes a lease-held delay up to the longest lease plus the skews and the margin, and fails one past it', () => {
    const leaseOnly: WorldConfig = { ...config, retry: { leaseHeldMarginSeconds: 1 } };
    // 10 s function + 5 s lease skew allowance + no clock skew, then 1 s of margin.
    expect(leaseHeldCapSeconds(leaseOnly)).toBe(16);

    expect(capFailures(chosen(16, 'leaseHeld'), { config: leaseOnly })).toEqual([]);
    expect(capFailures(chosen(17, 'leaseHeld'), { config: leaseOnly })).toEqual([
      'retry caps: SQS hid ledger-1 for 17 s at 1.300 s, past the largest delay the retry option allows (16 s)',
      'retry caps: ledger-1 (evt-1, none) was given 17 s (leaseHeld) on receive 2 by invocation 1, past the longest lease (function timeout 10000 ms + lease skew 5000 ms + 2 × clock skew 0 ms) plus the margin: 16 s',
    ]);
  });

  it('fails a visibility change SQS applied beyond every allowed delay, though no delay was logged for it (its answer lost)', () => {
    expect(failuresOf({ delays: [], changes: [hid(1_300, 30)] })).toEqual([
      `retry caps: SQS hid ledger-1 for 30 s at 1.300 s, past the largest delay the retry option allows (${leaseHeldCapSeconds(config)} s)`,
    ]);
  });
});
