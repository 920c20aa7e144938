import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { InvalidConfigurationError, RecordDeadlineError } from '../../../src/errors.js';
import {
  createBatchProcessor,
  DynamoDBInboxStore,
  RecordStatus,
  redriveUnsafeMessageIdKey,
} from '../../../src/index.js';
import { resolveRuntime, systemRuntime } from '../../../src/runtime/InboxRuntime.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../../support/sqsRecords.js';

describe('resolveRuntime', () => {
  it('is the system’s runtime when nothing is given', () => {
    expect(resolveRuntime(undefined)).toBe(systemRuntime);
  });

  it('takes the given methods over the system’s', () => {
    const random = () => 0.25;
    const runtime = resolveRuntime({ random, now: () => 42 });

    expect(runtime.random()).toBe(0.25);
    expect(runtime.now()).toBe(42);
    expect(runtime.sleep).toBe(systemRuntime.sleep);
  });

  it.each([
    { runtime: { clock: () => 1 }, fix: /one of now, sleep, random, startTimer/ },
    { runtime: { sleep: 10 }, fix: /runtime.sleep.*a function/ },
    { runtime: 'fake', fix: /an object with now, sleep, random or startTimer/ },
  ])('rejects $runtime with an error naming the fix', ({ runtime, fix }) => {
    const attempt = () => resolveRuntime(runtime as never);

    expect(attempt).toThrow(InvalidConfigurationError);
    expect(attempt).toThrow(fix);
  });
});

describe('a processor with its own runtime', () => {
  it('answers at the deadline of the runtime’s timer, not of a real one', async () => {
    const timers: Array<{ millis: number; fire: () => void }> = [];
    let release = () => {};
    const processor = createBatchProcessor(
      () => new Promise<void>((resolve) => (release = resolve)),
      {
        store: new DynamoDBInboxStore({
          tableName: 'inbox',
          clientConfig: { region: 'us-east-1' },
        }),
        consumer: 'unit',
        key: redriveUnsafeMessageIdKey,
        runtime: {
          startTimer: (millis, fire) => {
            timers.push({ millis, fire });
            return () => {};
          },
        },
        performance: { precheck: 'off' },
        observability: { logger: recordingLogger() },
      },
    );
    const context = { getRemainingTimeInMillis: () => 900_000 } as unknown as Context;

    const answer = processor.processRecords(sqsEvent(sqsRecord({ id: 1 })), context);
    await new Promise((resolve) => setImmediate(resolve));
    timers[0]?.fire();
    const [outcome] = await answer;
    release();

    expect(timers.map((timer) => timer.millis)).toEqual([899_000]);
    expect(outcome?.status).toBe(RecordStatus.Failed);
    expect(outcome?.error).toBeInstanceOf(RecordDeadlineError);
  });
});
