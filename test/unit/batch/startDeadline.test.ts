import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { startDeadline } from '../../../src/batch/startDeadline.js';
import { systemRuntime } from '../../../src/runtime/InboxRuntime.js';

const contextWith = (remainingMillis: number) =>
  ({ getRemainingTimeInMillis: () => remainingMillis }) as unknown as Context;

describe('startDeadline', () => {
  it('comes the margin before the timeout, but never before half the remaining time', async () => {
    const deadline = startDeadline(contextWith(60), 1_000, systemRuntime);

    await deadline?.reached;

    expect(deadline?.signal.aborted).toBe(true);
    expect(deadline?.signal.reason).toMatchObject({ deadlineMillis: 30 });
  });

  it('has no deadline without a Lambda context, or with more time left than a timer can wait', () => {
    expect(startDeadline(undefined, 1_000, systemRuntime)).toBeUndefined();
    expect(startDeadline(contextWith(2 ** 32), 1_000, systemRuntime)).toBeUndefined();
  });
});
