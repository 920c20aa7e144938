import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { SqsRedriveQueue } from '../../../src/aws/SqsRedriveQueue.js';
import { receiveAll } from '../../../src/operations/receiveAll.js';
import { testAws } from '../../harness/aws.js';
import { receiveMessages, takeMessages } from '../../support/receiveMessages.js';

const aws = testAws();
afterAll(() => aws.cleanup());
const MESSAGES = 12;
/** Shortened from five minutes: the run below outlasts it several times. */
const HOLD_SECONDS = 3;

const wait = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));

async function queueOf(count: number) {
  const queue = await aws.createQueue(aws.uniqueName('held'));
  for (let n = 0; n < count; n += 10) {
    const entries = Array.from({ length: Math.min(10, count - n) }, (_, i) => ({
      Id: String(i),
      MessageBody: `message-${n + i}`,
    }));
    await aws.sqs.send(new SendMessageBatchCommand({ QueueUrl: queue.url, Entries: entries }));
  }
  return queue;
}

describe('receiveAll, the reader of a redrive', () => {
  it('keeps what it holds hidden for as long as it runs, past its hold: no message is seen again or by another reader', async () => {
    const queue = await queueOf(MESSAGES);
    const reader = receiveAll(await SqsRedriveQueue.open(aws.sqs, queue.url), () => false, {
      now: Date.now,
      holdSeconds: HOLD_SECONDS,
    });
    const seen: string[] = [];
    try {
      for await (const record of reader.records()) {
        seen.push(record.body);
        // Each message takes a while: the run outlasts its first hold twice over.
        await wait(600);
      }
      expect(seen.sort()).toEqual(
        Array.from({ length: MESSAGES }, (_, n) => `message-${n}`).sort(),
      );
      // Another reader, now: everything is still held.
      expect(await receiveMessages(aws.sqs, queue.url)).toEqual([]);
    } finally {
      await reader.releaseAll();
    }
    expect(await takeMessages(aws.sqs, queue.url, MESSAGES, 5_000)).toHaveLength(MESSAGES);
  }, 60_000);
});
