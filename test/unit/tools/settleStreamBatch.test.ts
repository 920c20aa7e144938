import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  type StreamRetryPolicy,
  settleStreamBatch,
} from '../../../tools/local/settleStreamBatch.js';

const NOW_SECONDS = 1_800_000_000;

function records(count: number, ageSeconds = 0): DynamoDBRecord[] {
  return Array.from({ length: count }, (_, index) => ({
    eventName: 'INSERT',
    dynamodb: {
      SequenceNumber: String(index + 1),
      ApproximateCreationDateTime: NOW_SECONDS - ageSeconds,
    },
  }));
}

const seqs = (batch: DynamoDBRecord[]) =>
  batch.map((record) => record.dynamodb?.SequenceNumber).join(',');

function policy(overrides: Partial<StreamRetryPolicy> = {}): StreamRetryPolicy {
  return {
    maximumRetryAttempts: 2,
    maximumRecordAgeSeconds: -1,
    bisectBatchOnFunctionError: false,
    reportBatchItemFailures: true,
    ...overrides,
  };
}

/** Runs a batch through the documented semantics with a scripted function. */
async function settle(
  batch: DynamoDBRecord[],
  settings: StreamRetryPolicy,
  answer: (batch: DynamoDBRecord[], call: number) => DynamoDBBatchResponse | Error | undefined,
) {
  const invocations: string[] = [];
  const givenUp: Array<{ seqs: string; condition: string }> = [];
  await settleStreamBatch(batch, settings, {
    invoke: async (records) => {
      invocations.push(seqs(records));
      const result = answer(records, invocations.length);
      if (result instanceof Error) throw result;
      return result;
    },
    nowMillis: () => NOW_SECONDS * 1000,
    sleep: async () => {},
    giveUp: async (given, condition) => {
      givenUp.push({ seqs: seqs(given), condition });
    },
  });
  return { invocations, givenUp };
}

const failAt = (seq: string): DynamoDBBatchResponse => ({
  batchItemFailures: [{ itemIdentifier: seq }],
});

describe('settleStreamBatch (Lambda stream semantics, locally)', () => {
  it('retries from the lowest reported sequence number, keeping the records before it', async () => {
    const { invocations, givenUp } = await settle(records(4), policy(), (_, call) =>
      call === 1
        ? { batchItemFailures: [{ itemIdentifier: '4' }, { itemIdentifier: '2' }] }
        : undefined,
    );
    expect(invocations).toEqual(['1,2,3,4', '2,3,4']);
    expect(givenUp).toEqual([]);
  });

  it('retries the whole batch when an identifier names no record of it', async () => {
    const { invocations } = await settle(records(3), policy(), (_, call) =>
      call === 1 ? failAt('x') : undefined,
    );
    expect(invocations).toEqual(['1,2,3', '1,2,3']);
  });

  it('ignores partial responses when ReportBatchItemFailures is off', async () => {
    const { invocations } = await settle(
      records(2),
      policy({ reportBatchItemFailures: false }),
      () => failAt('1'),
    );
    expect(invocations).toEqual(['1,2']);
  });

  it('gives up after the retry limit with RetryAttemptsExhausted, on what is left', async () => {
    const { invocations, givenUp } = await settle(
      records(3),
      policy({ maximumRetryAttempts: 2 }),
      () => failAt('2'),
    );
    expect(invocations).toEqual(['1,2,3', '2,3', '2,3']);
    expect(givenUp).toEqual([{ seqs: '2,3', condition: 'RetryAttemptsExhausted' }]);
  });

  it('bisects a batch whose function throws, and isolates the bad record', async () => {
    const { invocations, givenUp } = await settle(
      records(4),
      policy({ bisectBatchOnFunctionError: true, maximumRetryAttempts: 3 }),
      (batch) => (seqs(batch).split(',').includes('3') ? new Error('poison') : undefined),
    );
    expect(invocations).toEqual(['1,2,3,4', '1,2', '3,4', '3', '3', '4']);
    expect(givenUp).toEqual([{ seqs: '3', condition: 'RetryAttemptsExhausted' }]);
  });

  it('gives up on records older than the maximum age with MaxRecordAgeExceeded, without invoking', async () => {
    const { invocations, givenUp } = await settle(
      records(2, 120),
      policy({ maximumRecordAgeSeconds: 60 }),
      () => undefined,
    );
    expect(invocations).toEqual([]);
    expect(givenUp).toEqual([{ seqs: '1,2', condition: 'MaxRecordAgeExceeded' }]);
  });

  it('retries without limit when the limit is -1, until the function succeeds', async () => {
    const { invocations } = await settle(
      records(1),
      policy({ maximumRetryAttempts: -1 }),
      (_, call) => (call < 8 ? new Error('down') : undefined),
    );
    expect(invocations).toHaveLength(8);
  });
});
