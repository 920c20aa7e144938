import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  InboxMetric,
  InboxStatus,
  inboxPk,
  LEASE_LIMITS,
  stepIdempotencyKey,
} from '../../src/constants/index.js';
import {
  LeaseHeldError,
  StepNameError,
  StepResultError,
  TransactionClosedError,
} from '../../src/errors.js';
import {
  createBatchProcessor,
  DynamoDBInboxStore,
  type InboxOptions,
  LeaseLostError,
  type MessageHandler,
  PermanentError,
  RecordStatus,
  TimerPurpose,
} from '../../src/index.js';
import { latch } from '../support/latch.js';
import { PaymentCaptured, payment, useLedger } from '../support/ledgerFixture.js';
import { manualRuntime, settlesWithin } from '../support/manualRuntime.js';
import { countingMetrics, recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';
import { withOptions } from '../support/withOptions.js';

const { aws, ledger } = useLedger();
const CONSUMER = 'mailer';

/** A client that records the commands it sends, in order. */
function recordingClient() {
  const client = new DynamoDBClient({
    endpoint: aws.endpoints.dynamodb,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const commands: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      commands.push(String(context.commandName).replace(/Command$/, ''));
      return next(args);
    },
    { step: 'initialize', name: 'recordCommands' },
  );
  return { store: new DynamoDBInboxStore({ tableName: ledger.tables.inbox, client }), commands };
}

function processor(
  handler: MessageHandler<PaymentCaptured>,
  overrides: Partial<InboxOptions<typeof PaymentCaptured>> = {},
) {
  return createBatchProcessor(
    handler,
    withOptions<InboxOptions<typeof PaymentCaptured>>(
      {
        store: ledger.store,
        consumer: CONSUMER,
        schema: PaymentCaptured,
        key: ({ body }) => body.eventId,
        observability: { logger: recordingLogger() },
      },
      overrides,
    ),
  );
}

/** A handler that charges (a step), emails (a step) and credits the account (in `tx`). */
function chargingHandler(
  runs: { charge: string[]; email: string[] },
  failAfterCharge: () => boolean,
) {
  const handler: MessageHandler<PaymentCaptured> = async ({ body, step }, tx) => {
    const charge = await step('charge', ({ idempotencyKey }) => {
      runs.charge.push(idempotencyKey);
      return { chargeId: `ch-${runs.charge.length}` };
    });
    if (failAfterCharge()) throw new Error('the mail server is down');
    await step('email', ({ idempotencyKey }) => {
      runs.email.push(idempotencyKey);
    });
    tx.update({
      TableName: ledger.tables.accounts,
      Key: { accountId: body.accountId },
      UpdateExpression: 'ADD balanceCents :a SET chargeId = :c',
      ExpressionAttributeValues: { ':a': body.amountCents, ':c': charge.chargeId },
    });
  };
  return handler;
}

/**
 * A step body the message `holder` stays in until `release()`; `entered` resolves once it is
 * in it. Another message's step returns at once, so a copy that wrongly took the lease never
 * hangs the test.
 */
function heldStep() {
  const ran: string[] = [];
  const [entered, enter] = latch();
  const [held, release] = latch();
  const body = (messageId: string): Promise<void> | undefined => {
    ran.push(messageId);
    if (messageId !== 'holder') return undefined;
    enter();
    return held;
  };
  return { ran, entered, release, body };
}

const lambdaContext = (remainingMillis: number) =>
  ({ getRemainingTimeInMillis: () => remainingMillis }) as unknown as Context;

describe('steps', () => {
  it('journals a finished step and replays its result, without running it, when the message comes again', async () => {
    const event = payment({ accountId: `acc-${randomUUID()}` });
    const runs = { charge: [] as string[], email: [] as string[] };
    let failing = true;
    const handler = chargingHandler(runs, () => failing);

    const [first] = await processor(handler).processRecords(sqsEvent(sqsRecord(event)));
    expect(first?.status).toBe(RecordStatus.Failed);
    expect(await ledger.store.find(inboxPk(CONSUMER, event.eventId))).toMatchObject({
      status: InboxStatus.Failed,
      attempts: 1,
      lastError: { name: 'Error' },
      steps: { charge: {} },
    });

    failing = false;
    const [second] = await processor(handler).processRecords(sqsEvent(sqsRecord(event)));

    expect(second?.status).toBe(RecordStatus.Processed);
    expect(runs.charge).toHaveLength(1);
    expect(runs.email).toHaveLength(1);
    const { Item } = await aws.documentClient.send(
      new GetCommand({ TableName: ledger.tables.accounts, Key: { accountId: event.accountId } }),
    );
    expect(Item).toMatchObject({ balanceCents: event.amountCents, chargeId: 'ch-1' });
    const entry = await ledger.store.find(inboxPk(CONSUMER, event.eventId));
    expect(entry).toMatchObject({
      status: InboxStatus.Completed,
      attempts: 2,
      steps: { charge: {}, email: {} },
    });
    expect(entry).not.toHaveProperty('leaseUntilMillis');
  });

  it('gives a step the same idempotency key on every attempt and redelivery, derived from consumer, key and step name only', async () => {
    const event = payment();
    const runs = { charge: [] as string[], email: [] as string[] };
    let attempts = 0;
    const handler: MessageHandler<PaymentCaptured> = async ({ step }) => {
      attempts += 1;
      await step(`charge-${attempts}`, ({ idempotencyKey }) => {
        runs.charge.push(idempotencyKey);
      });
      await step('email', ({ idempotencyKey }) => {
        runs.email.push(idempotencyKey);
        if (attempts < 3) throw new Error('smtp timeout');
      });
    };

    for (let i = 0; i < 3; i++) {
      await processor(handler).processRecords(
        sqsEvent(sqsRecord(event, { messageId: randomUUID() })),
      );
    }

    expect(runs.email).toEqual(Array(3).fill(stepIdempotencyKey(CONSUMER, event.eventId, 'email')));
    expect(new Set(runs.charge).size).toBe(3);
    expect(runs.charge[0]).toBe(stepIdempotencyKey(CONSUMER, event.eventId, 'charge-1'));
  });

  it('reports a copy that finds a live lease failed with LeaseHeldError: it runs nothing and is no duplicate', async () => {
    const event = payment();
    const [held, release] = latch();
    const [inStep, entered] = latch();
    const ran: string[] = [];
    const handler: MessageHandler<PaymentCaptured> = async ({ step, messageId }) => {
      await step('charge', async () => {
        ran.push(messageId);
        entered();
        await held;
      });
    };
    const metrics = countingMetrics();
    const first = processor(handler).processRecords(
      sqsEvent(sqsRecord(event, { messageId: 'holder' })),
    );
    await inStep;

    const [copy] = await processor(handler, { observability: { metrics: metrics } }).processRecords(
      sqsEvent(sqsRecord(event, { messageId: 'copy' })),
    );
    release();

    expect(copy?.status).toBe(RecordStatus.Failed);
    expect(copy?.error).toBeInstanceOf(LeaseHeldError);
    expect(copy?.error).toMatchObject({ holderMessageId: 'holder' });
    expect(ran).toEqual(['holder']);
    expect(metrics.count(InboxMetric.Duplicates)).toBe(0);
    expect(metrics.count(InboxMetric.LeasesHeld)).toBe(1);
    expect((await first)[0]?.status).toBe(RecordStatus.Processed);
    const [later] = await processor(handler).processRecords(
      sqsEvent(sqsRecord(event, { messageId: 'copy' })),
    );
    expect(later?.status).toBe(RecordStatus.Duplicate);
  });

  it('finds a live lease at the claim too, when precheck is off', async () => {
    const event = payment();
    const holder = heldStep();
    const handler: MessageHandler<PaymentCaptured> = async ({ step, messageId }) => {
      await step('charge', () => holder.body(messageId));
    };
    const first = processor(handler).processRecords(
      sqsEvent(sqsRecord(event, { messageId: 'holder' })),
    );
    await settlesWithin('the holder in its step', holder.entered);

    const [copy] = await processor(handler, { performance: { precheck: 'off' } }).processRecords(
      sqsEvent(sqsRecord(event, { messageId: 'copy' })),
    );
    holder.release();
    await first;

    expect(copy?.error).toBeInstanceOf(LeaseHeldError);
    expect(holder.ran).toEqual(['holder']);
  });

  it('never lets a host whose clock runs up to the skew allowance ahead take over a lease that has not run its length', async () => {
    const event = payment();
    const holder = heldStep();
    const handler: MessageHandler<PaymentCaptured> = async ({ step, messageId }) => {
      await step('charge', () => holder.body(messageId));
    };
    // The holder's heartbeat never fires: the lease it claimed is all there is.
    const clock = manualRuntime();
    const first = processor(handler, {
      runtime: clock.runtime,
      reliability: { leaseMillis: 1_000 },
    }).processRecords(sqsEvent(sqsRecord(event, { messageId: 'holder' })));
    await settlesWithin('the holder in its step', holder.entered);
    // 800 ms into the holder's 1-second lease, a host whose clock runs ahead by almost the
    // allowance: by that clock the lease has long lapsed, but not its allowance.
    const aheadMillis = 800 + LEASE_LIMITS.clockSkewMillis - 100;
    const ahead = { now: () => clock.now() + aheadMillis };
    const [copy] = await processor(handler, {
      runtime: ahead,
      performance: { precheck: 'off' },
    }).processRecords(sqsEvent(sqsRecord(event, { messageId: 'ahead' })));
    holder.release();
    const [outcome] = await first;

    expect(copy?.error).toBeInstanceOf(LeaseHeldError);
    expect(holder.ran).toEqual(['holder']);
    expect(outcome?.status).toBe(RecordStatus.Processed);
  });

  it('renews at once the shorter lease an earlier try wrote, when a retried claim finds its own (injected lost answer)', async () => {
    const event = payment({ accountId: `acc-${randomUUID()}` });
    // Heartbeats never fire: only the renewal at once can keep the lease.
    const clock = manualRuntime();
    const client = new DynamoDBClient({
      endpoint: aws.endpoints.dynamodb,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    let lost = 0;
    // The claim's first try lands; its answer is lost, and the retry goes 7 s later.
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as Record<string, unknown>;
        const claim = String(input.UpdateExpression).startsWith('SET #status = :inProgress');
        if (context.commandName !== 'UpdateItemCommand' || !claim || lost > 0) return next(args);
        lost++;
        await next(args);
        clock.advance(7_000);
        throw Object.assign(new Error('injected: the answer was lost'), { name: 'TimeoutError' });
      },
      { step: 'initialize', name: 'loseClaimAnswer', priority: 'high' },
    );
    const startMillis = clock.now();
    const context = {
      getRemainingTimeInMillis: () => 10_000 - (clock.now() - startMillis),
    } as unknown as Context;
    const charges: string[] = [];
    let competitor: unknown;
    const handler: MessageHandler<PaymentCaptured> = async ({ step, messageId }) => {
      await step('charge', async () => {
        charges.push(messageId);
        if (messageId !== 'holder') return;
        // The step runs on past the lease the first try wrote (3 s + the allowance).
        clock.advance(1_600);
        const [other] = await processor(handler, { runtime: clock.runtime }).processRecords(
          sqsEvent(sqsRecord(event, { messageId: 'competitor' })),
        );
        competitor = other?.error;
      });
    };

    const [holder] = await processor(handler, {
      store: new DynamoDBInboxStore({ tableName: ledger.tables.inbox, client }),
      runtime: clock.runtime,
      reliability: { leaseMillis: 3_000 },
    }).processRecords(sqsEvent(sqsRecord(event, { messageId: 'holder' })), context);

    expect(lost).toBe(1);
    expect(competitor).toBeInstanceOf(LeaseHeldError);
    expect(charges).toEqual(['holder']);
    expect(holder?.status).toBe(RecordStatus.Processed);
    client.destroy();
  });

  it("keeps a long handler's lease with heartbeats, and sends none once the commit is on its way", async () => {
    const event = payment();
    const { store, commands } = recordingClient();
    const holder = heldStep();
    const handler: MessageHandler<PaymentCaptured> = async ({ step, messageId }) => {
      await step('slow', () => holder.body(messageId));
    };
    const clock = manualRuntime();
    const claimedAtMillis = clock.now();
    const first = processor(handler, {
      store,
      runtime: clock.runtime,
      reliability: { leaseMillis: 1_000 },
    }).processRecords(sqsEvent(sqsRecord(event, { messageId: 'holder' })));
    await settlesWithin('the holder in its step', holder.entered);
    // Each beat a third of the lease later, each fired once the last one settled (its next timer
    // set): 20 of them take the clock past the lease and allowance the claim alone wrote.
    for (let beat = 0; beat < 20; beat++) {
      const timer = await settlesWithin('a heartbeat', clock.started(TimerPurpose.Heartbeat));
      expect(timer.millis).toBe(333);
      clock.fire(timer);
    }
    await settlesWithin('a heartbeat', clock.started(TimerPurpose.Heartbeat));
    expect(clock.now()).toBeGreaterThan(claimedAtMillis + 1_000 + LEASE_LIMITS.clockSkewMillis);

    const [copy] = await processor(handler, { runtime: clock.runtime }).processRecords(
      sqsEvent(sqsRecord(event, { messageId: 'copy' })),
    );
    holder.release();
    const [outcome] = await first;

    expect(copy?.error).toBeInstanceOf(LeaseHeldError);
    expect(outcome?.status).toBe(RecordStatus.Processed);
    const heartbeats = commands.filter((name) => name === 'UpdateItem').length - 2; // claim + journal
    expect(heartbeats).toBe(20);
    expect(clock.live(TimerPurpose.Heartbeat)).toEqual([]);
    expect(commands.at(-1)).toBe('TransactWriteItems');
  });

  it("bounds the default lease by the invocation's remaining time (plus the skew allowance), and needs no heartbeat then", async () => {
    const event = payment();
    const { store, commands } = recordingClient();
    let leaseUntilMillis: number | undefined;
    const handler: MessageHandler<PaymentCaptured> = async ({ step }) => {
      await step('charge', async () => {
        const entry = await ledger.store.find(inboxPk(CONSUMER, event.eventId));
        leaseUntilMillis = entry?.leaseUntilMillis;
      });
    };
    const clock = manualRuntime();

    await processor(handler, { store, runtime: clock.runtime }).processRecords(
      sqsEvent(sqsRecord(event)),
      lambdaContext(30_000),
    );

    expect(leaseUntilMillis).toBe(clock.now() + 30_000 + LEASE_LIMITS.clockSkewMillis);
    expect(clock.startedSoFar(TimerPurpose.Heartbeat)).toEqual([]);
    // A batch of one reads nothing first: its claim is its check.
    expect(commands).toEqual(['UpdateItem', 'UpdateItem', 'TransactWriteItems']);
  });

  it('stops an attempt whose lease was taken over: its next step is refused, it never commits, and the owner commits once', async () => {
    const event = payment({ accountId: `acc-${randomUUID()}` });
    // Its heartbeat never fires: the lease lapses when the clock says so.
    const clock = manualRuntime();
    const { runtime } = clock;
    const steps: string[] = [];
    const [staleWaits, resumeStale] = latch();
    const [staleReady, staleInStep] = latch();
    const handler: MessageHandler<PaymentCaptured> = async ({ body, step, messageId }, tx) => {
      await step('charge', async () => {
        steps.push(`${messageId}:charge`);
        if (messageId === 'stale') {
          staleInStep();
          await staleWaits;
        }
      });
      await step('email', () => {
        steps.push(`${messageId}:email`);
      });
      tx.update({
        TableName: ledger.tables.accounts,
        Key: { accountId: body.accountId },
        UpdateExpression: 'ADD balanceCents :a',
        ExpressionAttributeValues: { ':a': body.amountCents },
      });
    };
    const stale = processor(handler, {
      runtime,
      reliability: { leaseMillis: 30_000 },
    }).processRecords(sqsEvent(sqsRecord(event, { messageId: 'stale' })));
    await staleReady;
    // The stale attempt's lease lapses, its skew allowance too.
    clock.advance(30_000 + LEASE_LIMITS.clockSkewMillis + 1_000);

    const [owner] = await processor(handler, {
      runtime,
      reliability: { leaseMillis: 30_000 },
    }).processRecords(sqsEvent(sqsRecord(event, { messageId: 'owner' })));
    resumeStale();
    const [staleOutcome] = await stale;

    expect(owner?.status).toBe(RecordStatus.Processed);
    expect(staleOutcome?.error).toBeInstanceOf(LeaseLostError);
    expect(staleOutcome?.error).toMatchObject({ operation: 'journal', stepName: 'charge' });
    expect(steps).toEqual(['stale:charge', 'owner:charge', 'owner:email']);
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
    expect(await ledger.store.find(inboxPk(CONSUMER, event.eventId))).toMatchObject({
      status: InboxStatus.Completed,
      attempts: 2,
    });
  });

  it('keeps the journal of a message that failed permanently after a step, so a redrive resumes it', async () => {
    const event = payment();
    const runs: string[] = [];
    let refuse = true;
    const dlq = await aws.createQueue(aws.uniqueName('steps-dlq'));
    const handler: MessageHandler<PaymentCaptured> = async ({ step }) => {
      await step('charge', () => {
        runs.push('charge');
        return 42;
      });
      if (refuse) throw new PermanentError('the account is closed');
    };
    const options = { deadLetter: { queueUrl: dlq.url, client: aws.sqs } };

    const [first] = await processor(handler, options).processRecords(sqsEvent(sqsRecord(event)));
    expect(first?.status).toBe(RecordStatus.DeadLettered);
    expect(await ledger.store.find(inboxPk(CONSUMER, event.eventId))).toMatchObject({
      status: InboxStatus.Failed,
      lastError: { name: 'PermanentError' },
      steps: { charge: {} },
    });

    refuse = false;
    const [redriven] = await processor(handler, options).processRecords(sqsEvent(sqsRecord(event)));
    expect(redriven?.status).toBe(RecordStatus.Processed);
    expect(runs).toEqual(['charge']);
  });

  it.each([
    {
      what: 'recognises its own claim when the claim was applied and its answer lost',
      lost: { journal: false, answers: 1 },
    },
    {
      what: 'reads the journal back after a journal write whose answers were lost, and replays the step instead of running it again',
      lost: { journal: true, answers: 2 },
    },
  ])('$what: the step runs once (injected lost answers)', async ({ lost }) => {
    const event = payment();
    const client = new DynamoDBClient({
      endpoint: aws.endpoints.dynamodb,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      maxAttempts: 1,
    });
    let answersLeftToLose = lost.answers;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        const names = (args.input as { ExpressionAttributeNames?: Record<string, string> })
          .ExpressionAttributeNames;
        const journal = names?.['#step'] !== undefined;
        const struck = context.commandName === 'UpdateItemCommand' && journal === lost.journal;
        if (struck && answersLeftToLose > 0) {
          answersLeftToLose -= 1; // applied by DynamoDB, its answer never arrives
          throw Object.assign(new Error('socket timed out'), { name: 'TimeoutError' });
        }
        return result;
      },
      { step: 'initialize', name: 'loseAnswers' },
    );
    const store = new DynamoDBInboxStore({ tableName: ledger.tables.inbox, client });
    const runs: string[] = [];
    const handler: MessageHandler<PaymentCaptured> = async ({ step }) => {
      await step('charge', () => {
        runs.push('charge');
        return { chargeId: 'ch_1' };
      });
    };

    const [outcome] = await processor(handler, {
      store,
      reliability: { transactionAttempts: 2 },
    }).processRecords(sqsEvent(sqsRecord(event)));

    expect(answersLeftToLose).toBe(0);
    expect(outcome?.status).toBe(RecordStatus.Processed);
    expect(runs).toEqual(['charge']);
    expect(await ledger.store.find(inboxPk(CONSUMER, event.eventId))).toMatchObject({
      attempts: 1,
    });
  });

  it('lets a step still running when its sibling failed finish and journal before the lease is released, so the next attempt replays it', async () => {
    const event = payment();
    const runs: string[] = [];
    let siblingFails = true;
    const handler: MessageHandler<PaymentCaptured> = async ({ step }) => {
      await Promise.all([
        step('email', async () => {
          await sleep(300);
          runs.push('email');
        }),
        step('sms', () => {
          runs.push('sms');
          if (siblingFails) throw new Error('sms gateway down');
        }),
      ]);
    };

    const [first] = await processor(handler).processRecords(sqsEvent(sqsRecord(event)));
    const afterFirst = await ledger.store.find(inboxPk(CONSUMER, event.eventId));
    siblingFails = false;
    const [second] = await processor(handler).processRecords(sqsEvent(sqsRecord(event)));

    expect(first?.status).toBe(RecordStatus.Failed);
    expect(afterFirst).toMatchObject({ status: InboxStatus.Failed, steps: { email: {} } });
    expect(second?.status).toBe(RecordStatus.Processed);
    expect(runs).toEqual(['sms', 'email', 'sms']);
  });

  it('returns the same value from a step whether it ran or was replayed', async () => {
    const event = payment();
    const seen: unknown[] = [];
    let fail = true;
    const handler: MessageHandler<PaymentCaptured> = async ({ step }) => {
      seen.push(
        await step('quote', () => ({
          cents: 1250,
          tags: ['a', 'b'],
          nested: { ok: true, none: null },
        })),
      );
      if (fail) throw new Error('later failure');
    };

    await processor(handler).processRecords(sqsEvent(sqsRecord(event)));
    fail = false;
    await processor(handler).processRecords(sqsEvent(sqsRecord(event)));

    expect(seen[1]).toEqual(seen[0]);
    expect(seen[0]).toEqual({ cents: 1250, tags: ['a', 'b'], nested: { ok: true, none: null } });
  });

  it.each([
    ['a Date', () => ({ at: new Date() }), 'the result.at is a Date'],
    ['a bigint', () => ({ n: 1n }), 'the result.n is a bigint'],
    ['NaN', () => [Number.NaN], 'the result[0] is a non-finite number'],
    ['too large a result', () => 'x'.repeat(33 * 1024), 'over the 32768-byte limit'],
  ])(
    'refuses to journal %s with StepResultError, naming where, and keeps earlier steps',
    async (_, result: () => unknown, problem) => {
      const event = payment();
      const handler: MessageHandler<PaymentCaptured> = async ({ step }) => {
        await step('first', () => 'fine');
        await step('second', result);
      };

      const [outcome] = await processor(handler).processRecords(sqsEvent(sqsRecord(event)));

      expect(outcome?.error).toBeInstanceOf(StepResultError);
      expect(outcome?.error).toMatchObject({ problem: expect.stringContaining(problem) });
      expect(await ledger.store.find(inboxPk(CONSUMER, event.eventId))).toMatchObject({
        status: InboxStatus.Failed,
        steps: { first: {} },
        lastError: { name: 'StepResultError' },
      });
    },
  );

  it.each([
    [
      'an empty name',
      async (step: (n: string, f: () => void) => Promise<void>) => step('', () => {}),
      'invalid',
    ],
    [
      'a name with a space',
      async (step: (n: string, f: () => void) => Promise<void>) => step('send email', () => {}),
      'invalid',
    ],
    [
      'a name used twice in a run',
      async (step: (n: string, f: () => void) => Promise<void>) => {
        await step('email', () => {});
        await step('email', () => {});
      },
      'repeated',
    ],
  ])('refuses %s with StepNameError before running anything', async (_, use, reason) => {
    const event = payment();
    const handler: MessageHandler<PaymentCaptured> = async ({ step }) => {
      await use(step);
    };

    const [outcome] = await processor(handler).processRecords(sqsEvent(sqsRecord(event)));

    expect(outcome?.error).toBeInstanceOf(StepNameError);
    expect(outcome?.error).toMatchObject({ reason });
  });

  it('acknowledges a duplicate whose claim found the message committed, without running the step', async () => {
    const event = payment();
    const ran: string[] = [];
    const handler: MessageHandler<PaymentCaptured> = async ({ step, messageId }) => {
      await step('charge', () => {
        ran.push(messageId);
      });
    };
    await processor(handler).processRecords(sqsEvent(sqsRecord(event, { messageId: 'first' })));

    const [again] = await processor(handler, { performance: { precheck: 'off' } }).processRecords(
      sqsEvent(sqsRecord(event, { messageId: 'again' })),
    );

    expect(again?.status).toBe(RecordStatus.Duplicate);
    expect(ran).toEqual(['first']);
  });

  it('refuses a step called after its handler settled, before running it', async () => {
    const event = payment();
    let late: Promise<unknown> | undefined;
    const ran: string[] = [];
    const handler: MessageHandler<PaymentCaptured> = async ({ step }) => {
      await step('charge', () => {});
      setTimeout(() => {
        late = step('late', () => {
          ran.push('late');
        });
        late.catch(() => {});
      }, 50);
    };

    await processor(handler).processRecords(sqsEvent(sqsRecord(event)));
    await sleep(150);

    await expect(late).rejects.toBeInstanceOf(TransactionClosedError);
    expect(ran).toEqual([]);
  });

  it('costs a handler without steps one transaction per message and one read per batch, as before steps existed', async () => {
    const { store, commands } = recordingClient();
    // Distinct accounts: commits crediting one account share a transaction.
    const records = [1, 2, 3].map((n) => sqsRecord(payment({ accountId: `acc-no-steps-${n}` })));

    await processor(ledger.applyPayment, { store }).processRecords(sqsEvent(...records));

    expect(commands.filter((name) => name === 'BatchGetItem')).toHaveLength(1);
    expect(commands.filter((name) => name === 'TransactWriteItems')).toHaveLength(3);
    expect(commands.filter((name) => name === 'UpdateItem')).toHaveLength(0);
    expect(commands.filter((name) => name !== 'DescribeTable')).toHaveLength(4);
  });
});
