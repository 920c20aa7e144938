import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';

/**
 * How Lambda's event source mapping retries a stream batch, as its documentation states it
 * (services-dynamodb-errors, services-ddb-batchfailurereporting): the settings of a mapping.
 */
export interface StreamRetryPolicy {
  /** Retries after the first attempt; -1: until the record is too old or expires. */
  readonly maximumRetryAttempts: number;
  /** -1: until the record expires from the stream (24 h). */
  readonly maximumRecordAgeSeconds: number;
  readonly bisectBatchOnFunctionError: boolean;
  readonly reportBatchItemFailures: boolean;
}

/** Why Lambda gave up on records (the on-failure record's `requestContext.condition`). */
export type GiveUpCondition = 'RetryAttemptsExhausted' | 'MaxRecordAgeExceeded';

/** What settling a batch needs besides the records: the function, a clock, a pause. */
export interface SettleDependencies {
  readonly invoke: (records: DynamoDBRecord[]) => Promise<DynamoDBBatchResponse | undefined>;
  readonly nowMillis: () => number;
  readonly sleep: (millis: number) => Promise<void>;
  /** Called with the records Lambda gives up on, in order, and why: the on-failure destination. */
  readonly giveUp: (
    records: DynamoDBRecord[],
    condition: GiveUpCondition,
    invokeCount: number,
  ) => Promise<void>;
}

/**
 * Settles one batch the way Lambda does for a stream: invoke; on a partial batch response,
 * keep the records before the lowest failed sequence number (an unknown identifier fails the
 * whole batch) and retry from it; on a function error, retry the batch, split in two first
 * when bisecting (the halves in order, the retry count carried on). Gives up (to `giveUp`) on
 * the records left once the retries are spent or the oldest is too old. Resolves when every
 * record is done or given up: the shard then moves past the batch.
 */
export async function settleStreamBatch(
  records: DynamoDBRecord[],
  policy: StreamRetryPolicy,
  deps: SettleDependencies,
  attemptsSoFar = 0,
): Promise<void> {
  let remaining = records;
  let attempts = attemptsSoFar;
  while (remaining.length > 0) {
    if (tooOld(remaining, policy, deps.nowMillis())) {
      await deps.giveUp(remaining, 'MaxRecordAgeExceeded', attempts);
      return;
    }
    attempts += 1;
    const result = await invokeOnce(remaining, policy, deps);
    if (result.kind === 'done') return;
    if (result.kind === 'partial') remaining = remaining.slice(result.from);
    if (policy.maximumRetryAttempts >= 0 && attempts > policy.maximumRetryAttempts) {
      await deps.giveUp(remaining, 'RetryAttemptsExhausted', attempts);
      return;
    }
    if (result.kind === 'error' && policy.bisectBatchOnFunctionError && remaining.length > 1) {
      const middle = Math.ceil(remaining.length / 2);
      await settleStreamBatch(remaining.slice(0, middle), policy, deps, attempts);
      await settleStreamBatch(remaining.slice(middle), policy, deps, attempts);
      return;
    }
    await deps.sleep(Math.min(100 * 2 ** Math.min(attempts, 5), 2_000));
  }
}

type InvokeResult = { kind: 'done' } | { kind: 'partial'; from: number } | { kind: 'error' };

async function invokeOnce(
  records: DynamoDBRecord[],
  policy: StreamRetryPolicy,
  deps: SettleDependencies,
): Promise<InvokeResult> {
  let response: DynamoDBBatchResponse | undefined;
  try {
    response = await deps.invoke(records);
  } catch {
    return { kind: 'error' };
  }
  const failures = policy.reportBatchItemFailures ? (response?.batchItemFailures ?? []) : [];
  if (failures.length === 0) return { kind: 'done' };
  const positions = failures.map(({ itemIdentifier }) =>
    records.findIndex((record) => record.dynamodb?.SequenceNumber === itemIdentifier),
  );
  // An identifier that names no record of the batch fails the whole batch.
  const from = positions.some((position) => position < 0) ? 0 : Math.min(...positions);
  return { kind: 'partial', from };
}

function tooOld(records: DynamoDBRecord[], policy: StreamRetryPolicy, nowMillis: number): boolean {
  if (policy.maximumRecordAgeSeconds < 0) return false;
  const created = records[0]?.dynamodb?.ApproximateCreationDateTime;
  if (created === undefined) return false;
  return nowMillis - created * 1000 > policy.maximumRecordAgeSeconds * 1000;
}
