import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { Kernel } from '../../../tools/sim/kernel/Kernel.js';
import { Prng } from '../../../tools/sim/kernel/Prng.js';
import { EventSourceMapping } from '../../../tools/sim/lambda/EventSourceMapping.js';
import type { Invocation } from '../../../tools/sim/lambda/SimLambda.js';
import { SimQueue } from '../../../tools/sim/sqs/SimQueue.js';
import { calmFaults } from '../../support/calmFaults.js';

/**
 * A queue with one message and a mapping whose function fails the message's first receive
 * and, `changeAtMillis` into the world, changes that receive's visibility to `seconds`: when
 * the function was invoked.
 */
async function invocationTimes(changeAtMillis: number, seconds: number): Promise<number[]> {
  const random = new Prng(3);
  const kernel = new Kernel(random.derive('kernel'), false);
  const queue = new SimQueue({
    name: 'source',
    fifo: false,
    visibilityTimeoutMillis: 30_000,
    random,
  });
  const invokedAtMillis: number[] = [];
  let firstHandle = '';
  const invoke = async (event: SQSEvent) => {
    invokedAtMillis.push(kernel.nowMillis);
    const [record] = event.Records;
    const first = invokedAtMillis.length === 1;
    if (first) firstHandle = record?.receiptHandle ?? '';
    return { failedMessageIds: first ? [record?.messageId] : [] } as unknown as Invocation;
  };
  const faults = calmFaults({ untilMillis: 0 });
  new EventSourceMapping(kernel, random.derive('esm'), {
    queue,
    lambda: { invoke },
    batchSize: 10,
    pollers: 1,
    faults,
  }).start();
  queue.send({ body: 'm1' }, 0);
  kernel.schedule({
    actor: 'processor',
    label: 'changes the visibility',
    delayMillis: changeAtMillis,
    run: () => queue.changeVisibility(firstHandle, seconds, kernel.nowMillis),
  });
  await kernel.run(() => queue.messages.length === 0, { maxMillis: 120_000, maxSteps: 10_000 });
  return invokedAtMillis;
}

describe('EventSourceMapping', () => {
  it('receives a message again as soon as a visibility change brings it back, not at the old timeout', async () => {
    const [, second] = await invocationTimes(5_000, 0);

    expect(second).toBeGreaterThanOrEqual(5_000);
    expect(second).toBeLessThan(5_500);
  });

  it('receives a message again when a shorter visibility change runs out', async () => {
    const [, second] = await invocationTimes(5_000, 3);

    expect(second).toBeGreaterThanOrEqual(8_000);
    expect(second).toBeLessThan(8_500);
  });
});
