import { describe, expect, it } from 'vitest';
import {
  conditionalCheckFailed,
  heldItemsCancellation,
  throttled,
  transactionConflict,
  transactionInProgress,
} from '../../../src/testing/dynamo/dynamoExceptions.js';
import type { DynamoOperation } from '../../../src/testing/dynamo/SimDocumentClient.js';
import type { ServerTime } from '../../../src/testing/dynamo/SimDynamoDB.js';
import { Kernel } from '../../../tools/sim/kernel/Kernel.js';
import { Prng } from '../../../tools/sim/kernel/Prng.js';
import { REQUEST_TIMEOUT_MILLIS } from '../../../tools/sim/network/Network.js';
import {
  ConflictRules,
  senderName,
  TRANSACTION_SERVICE_MILLIS,
} from '../../../tools/sim/world/ConflictRules.js';

/** An operation that records the server time each application was given. */
function recorded(name: string) {
  const given: Array<ServerTime | undefined> = [];
  const operation: DynamoOperation = {
    name,
    tableNames: ['t'],
    input: {},
    apply: (at) => {
      given.push(at);
      return {};
    },
  };
  return { operation, given };
}

/** Lets the kernel's time pass (nothing else is scheduled). */
async function advance(kernel: Kernel, millis: number): Promise<void> {
  const slept = kernel.sleep('test', millis);
  await kernel.run(() => false, { maxMillis: Number.POSITIVE_INFINITY, maxSteps: 10 });
  await slept;
}

describe('ConflictRules', () => {
  it('gives a transaction the time it reaches the server, its sender and a service time of 5–30 ms, which its answer waits for', () => {
    const kernel = new Kernel(new Prng(1), false);
    const rules = new ConflictRules(kernel, new Prng(2));
    const holds = Array.from({ length: 200 }, () => {
      const { operation, given } = recorded('TransactWriteItems');
      const { apply, options } = rules.request(operation, senderName('lambda', 3));
      apply();
      expect(given[0]).toMatchObject({ nowMillis: 0, by: 'lambda invocation 3' });
      expect(options.serviceMillis).toBe(given[0]?.holdMillis);
      return given[0]?.holdMillis ?? -1;
    });

    expect(Math.min(...holds)).toBe(TRANSACTION_SERVICE_MILLIS.min);
    expect(Math.max(...holds)).toBe(TRANSACTION_SERVICE_MILLIS.max);
  });

  it('holds nothing for a single-item write and notes refusals as contention', () => {
    const rules = new ConflictRules(new Kernel(new Prng(1), false), new Prng(2));
    const { operation, given } = recorded('UpdateItem');
    const { apply, options } = rules.request(operation, 'lambda invocation 1');

    apply();

    expect(given[0]?.holdMillis).toBe(0);
    expect(options.contended?.(transactionConflict())).toBe(true);
    expect(options.contended?.(transactionInProgress())).toBe(true);
    expect(options.contended?.(heldItemsCancellation(2, [1]))).toBe(true);
    expect(options.contended?.(throttled('UpdateItem'))).toBe(false);
    expect(options.contended?.(conditionalCheckFailed())).toBe(false);
  });

  it('names no sender for a copy the network applies again or a request applied after its SDK timeout', async () => {
    const kernel = new Kernel(new Prng(1), false);
    const rules = new ConflictRules(kernel, new Prng(2));
    const once = recorded('TransactWriteItems');
    const twice = rules.request(once.operation, 'lambda invocation 1');
    twice.apply();
    twice.apply();
    const late = recorded('TransactWriteItems');
    const held = rules.request(late.operation, 'lambda invocation 1');

    await advance(kernel, REQUEST_TIMEOUT_MILLIS);
    held.apply();

    expect(once.given.map((at) => at?.by)).toEqual(['lambda invocation 1', undefined]);
    expect(late.given[0]).toMatchObject({ nowMillis: REQUEST_TIMEOUT_MILLIS });
    expect(late.given[0]?.by).toBeUndefined();
  });

  it('off, applies a request without a time and draws nothing', () => {
    const rules = new ConflictRules(new Kernel(new Prng(1), false), undefined);
    const { operation, given } = recorded('TransactWriteItems');
    const { apply, options } = rules.request(operation, 'lambda invocation 1');

    apply();

    expect(rules.on).toBe(false);
    expect(given).toEqual([undefined]);
    expect(options).toEqual({});
  });
});
