import { describe, expect, it } from 'vitest';
import { SimDynamoDB } from '../../../src/testing/dynamo/SimDynamoDB.js';
import { Prng } from '../../../tools/sim/kernel/Prng.js';
import type { FaultedRequest, Invocation } from '../../../tools/sim/lambda/SimLambda.js';
import { FaultKind, RequestChannel } from '../../../tools/sim/network/Network.js';
import { SimQueue } from '../../../tools/sim/sqs/SimQueue.js';
import {
  CONTENTION_SLACK_MILLIS,
  checkContention,
  checkSelfContention,
} from '../../../tools/sim/world/checkContention.js';
import { FailureExplainer } from '../../../tools/sim/world/explainFailure.js';
import { drawWorldConfig, type WorldConfig } from '../../../tools/sim/world/WorldConfig.js';
import type { WorldObservation } from '../../../tools/sim/world/WorldObservation.js';

/** A 10 s function: the batch's deadline is 9 s after the invocation starts (1 s of margin). */
const config: WorldConfig = {
  ...drawWorldConfig(new Prng(1)),
  consumer: 'counter',
  fifo: false,
  functionTimeoutMillis: 10_000,
  maxReceiveCount: 5,
};
const DEADLINE_MILLIS = 9_000;

/**
 * The parts of a world the contention check reads (queues, configuration, invocations); the rest
 * of an observation plays no part in it.
 */
function worldWith(invocation: Invocation): { world: WorldObservation; messageId: string } {
  const queue = new SimQueue({
    name: 'q',
    fifo: false,
    visibilityTimeoutMillis: 60_000,
    random: new Prng(2),
  });
  const deadLetterQueue = new SimQueue({
    name: 'dlq',
    fifo: false,
    visibilityTimeoutMillis: 60_000,
    random: new Prng(3),
  });
  const message = queue.send({ body: '{"eventId":"evt-1"}' }, 0);
  const world = { config, queue, deadLetterQueue, invocations: [invocation] };
  return { world: world as unknown as WorldObservation, messageId: message?.messageId ?? '' };
}

function failedRecord(
  requests: (messageId: string) => FaultedRequest[],
  faults = new Set<FaultKind>(),
  deadLetteredAtMillis?: number,
) {
  const invocation: Invocation = {
    id: 1,
    actor: 'lambda-1',
    messageIds: [],
    receiveCounts: new Map(),
    startedMillis: 0,
    endedMillis: 400,
    faults,
    faultedRequests: [],
    deadlineMillis: undefined,
    end: 'response',
    failedMessageIds: [],
  };
  const { world, messageId } = worldWith(invocation);
  Object.assign(invocation, {
    messageIds: [messageId],
    receiveCounts: new Map([[messageId, 1]]),
    failedMessageIds: deadLetteredAtMillis === undefined ? [messageId] : [],
    faultedRequests: requests(messageId),
  });
  if (deadLetteredAtMillis !== undefined) {
    world.deadLetterQueue.send(
      {
        body: '{"eventId":"evt-1"}',
        attributes: { 'inbox.originalMessageId': { DataType: 'String', StringValue: messageId } },
        sentBy: invocation.id,
        requestedAtMillis: deadLetteredAtMillis,
      },
      deadLetteredAtMillis,
    );
  }
  const failures: string[] = [];
  checkContention(world, () => undefined, new FailureExplainer(config, new Map()), failures);
  return failures;
}

const commit = (
  messageId: string,
  kinds: FaultKind[],
  notedMillis: number,
  channel: RequestChannel = RequestChannel.Store,
): FaultedRequest => ({
  channel,
  subjects: [messageId],
  operation: 'TransactWriteItems',
  kinds: new Set(kinds),
  notedMillis,
});

describe('the contention invariant: no record failed for conflicts alone while its batch had time', () => {
  it('fails a record reported failed after real and injected conflicts with seconds left before its deadline', () => {
    const failures = failedRecord((id) => [
      commit(id, [FaultKind.Contention], 100),
      commit(id, [FaultKind.Contention], 200),
      commit(id, [FaultKind.TransactionConflict], 300),
    ]);

    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(
      /^contention: .* reported failed by invocation 1 for 3 conflict\(s\) \(2 real, 1 injected\) alone, the last at 0\.300 s, while its batch had until 9\.000 s$/,
    );
  });

  it('passes a record whose last conflict came within the slack of the deadline (cut while still retrying)', () => {
    const lastMillis = DEADLINE_MILLIS - CONTENTION_SLACK_MILLIS;

    expect(failedRecord((id) => [commit(id, [FaultKind.Contention], lastMillis)])).toEqual([]);
    expect(failedRecord((id) => [commit(id, [FaultKind.Contention], lastMillis - 1)])).toHaveLength(
      1,
    );
  });

  it('passes a record that another cause explains: a throttle or a lost answer among its faults, a fault on its handler’s request, a slowed invocation', () => {
    const conflict = (id: string) => commit(id, [FaultKind.Contention], 100);

    expect(failedRecord((id) => [conflict(id), commit(id, [FaultKind.Throttling], 150)])).toEqual(
      [],
    );
    expect(
      failedRecord((id) => [commit(id, [FaultKind.Contention, FaultKind.ResponseLost], 100)]),
    ).toEqual([]);
    expect(
      failedRecord((id) => [
        conflict(id),
        commit(id, [FaultKind.Contention], 150, RequestChannel.Handler),
      ]),
    ).toEqual([]);
    expect(failedRecord((id) => [conflict(id)], new Set([FaultKind.Slow]))).toEqual([]);
  });

  it('fails a record the library dead-lettered for conflicts alone while its batch had time, not one sent at the deadline', () => {
    const conflicts = (id: string) => [commit(id, [FaultKind.Contention], 100)];

    expect(failedRecord(conflicts, new Set(), 350)).toEqual([
      expect.stringMatching(
        /^contention: .* dead-lettered by invocation 1 for 1 conflict\(s\) \(1 real, 0 injected\) alone at 0\.350 s, while its batch had until 9\.000 s$/,
      ),
    ]);
    expect(failedRecord(conflicts, new Set(), DEADLINE_MILLIS)).toEqual([]);
  });

  it('passes a record that met no conflict (the other invariants judge it)', () => {
    expect(failedRecord(() => [])).toEqual([]);
  });
});

describe('the self-contention invariant: no invocation conflicts with itself', () => {
  /** A world whose DynamoDB saw a transaction by `holder` hold `a`, then a write by `refused`. */
  function conflictBetween(
    holder: string | undefined,
    refused: string | undefined,
    single = false,
  ) {
    const dynamo = new SimDynamoDB();
    dynamo.createTable({
      TableName: 't',
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    });
    const item = { TableName: 't', Item: { pk: { S: 'a' } } };
    const at = (nowMillis: number, by: string | undefined) => ({
      nowMillis,
      holdMillis: 20,
      ...(by === undefined ? {} : { by }),
    });
    dynamo.transactWriteItems({ TransactItems: [{ Put: item }] }, at(0, holder));
    const write = () =>
      single
        ? dynamo.putItem(item, at(10, refused))
        : dynamo.transactWriteItems({ TransactItems: [{ Put: item }] }, at(10, refused));
    expect(write).toThrow(single ? 'Transaction is ongoing for the item' : 'Transaction cancelled');
    const failures: string[] = [];
    checkSelfContention({ dynamo } as unknown as WorldObservation, failures);
    return failures;
  }

  it('fails a transaction cancelled for an item a transaction of its own invocation held', () => {
    expect(conflictBetween('lambda invocation 2', 'lambda invocation 2')).toEqual([
      'self-contention: a transaction of lambda invocation 2 was cancelled at 0.010 s for an item a transaction of the same invocation held: its commits that share an item must wait for each other',
    ]);
  });

  it('passes a conflict between two invocations, a single-item write meeting its own invocation’s transaction, and a request with no sender (a copy, a late one)', () => {
    expect(conflictBetween('lambda invocation 1', 'lambda invocation 2')).toEqual([]);
    expect(conflictBetween('lambda invocation 2', 'lambda invocation 2', true)).toEqual([]);
    expect(conflictBetween(undefined, undefined)).toEqual([]);
    expect(conflictBetween('lambda invocation 2', undefined)).toEqual([]);
  });
});
