import { describe, expect, it } from 'vitest';
import type { Invocation } from '../../../tools/sim/lambda/SimLambda.js';
import { FaultKind, RequestChannel } from '../../../tools/sim/network/Network.js';
import { slowedByFaults } from '../../../tools/sim/world/explainFailure.js';

/** An invocation whose batch deadline passed 9 s after it started, with `throttled` requests throttled. */
function deadlineAfterThrottling(throttled: number): Invocation {
  return {
    id: 1,
    actor: 'lambda-1',
    messageIds: ['m-1'],
    receiveCounts: new Map([['m-1', 1]]),
    startedMillis: 1_000,
    endedMillis: 10_000,
    faults: new Set(),
    faultedRequests: Array.from({ length: throttled }, (_, n) => ({
      channel: RequestChannel.Store,
      subjects: [`evt-${n}`],
      operation: 'UpdateItem',
      kinds: new Set([FaultKind.Throttling]),
      notedMillis: 1_000 + n,
    })),
    deadlineMillis: 10_000,
    end: 'response',
    failedMessageIds: ['m-1'],
  };
}

describe('slowedByFaults', () => {
  it('does not let a few throttled requests (at most a second of backoff each) explain a batch deadline', () => {
    expect(slowedByFaults(deadlineAfterThrottling(3))).toBe(false);
  });

  it('lets enough throttled requests to fill the batch’s time explain its deadline (records run one at a time)', () => {
    expect(slowedByFaults(deadlineAfterThrottling(9))).toBe(true);
  });

  it('explains nothing without a retried fault, even a batch whose time was nothing (a 1 ms function timeout)', () => {
    expect(slowedByFaults({ ...deadlineAfterThrottling(0), deadlineMillis: 1_000 })).toBe(false);
  });
});
