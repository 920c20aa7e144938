import { randomUUID } from 'node:crypto';
import { ChangeMessageVisibilityBatchCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { SqsRedriveQueue } from '../../../src/aws/SqsRedriveQueue.js';
import { InboxStatus } from '../../../src/constants/index.js';
import type { MessageHandler } from '../../../src/index.js';
import type { RedriveQueue } from '../../../src/operations/RedriveQueue.js';
import { redriveDeadLetters } from '../../../src/operations/redriveDeadLetters.js';
import { systemRuntime } from '../../../src/runtime/InboxRuntime.js';
import { deadLetterPayments, deadLetterQueues } from '../../support/deadLetterPayments.js';
import { drainingConsumer } from '../../support/deadLetterScene.js';
import { eventually } from '../../support/eventually.js';
import { latch } from '../../support/latch.js';
import {
  ledgerProcessor,
  type PaymentCaptured,
  payment,
  useLedger,
} from '../../support/ledgerFixture.js';
import { LEDGER_TTL_SECONDS, ledgerReading, ledgerRedrive } from '../../support/ledgerRedrive.js';
import { messageLines } from '../../support/messageLines.js';
import { sqsInbox, standardAwsEnvironment } from '../../support/operatorCli.js';

const { aws, ledger } = useLedger();
const DEAD_LETTERS = 5;
/** The run dies on the delete that follows its second send. */
const CRASH_AT_SEND = 2;

/** A ledger consumer journaling a `notify` step, counting each event's step runs. */
function stepConsumer() {
  const stepRuns = new Map<string, number>();
  const handler: MessageHandler<PaymentCaptured> = async (message, tx) => {
    await message.step('notify', async () => {
      stepRuns.set(message.body.eventId, (stepRuns.get(message.body.eventId) ?? 0) + 1);
      return { sent: true };
    });
    await ledger.applyPayment(message, tx);
  };
  return {
    processor: ledgerProcessor(handler, { store: ledger.store, consumer: 'ledger' }),
    stepRuns,
  };
}

/**
 * The DLQ as a redrive process sees it until the process is killed: on the delete that follows
 * its `crashAtSend`-th send the process dies — that call and every later one never return, and
 * nothing it held is released (the holds of its receives lapse on their own). Not an AWS fault:
 * SQS did everything asked of it until then.
 */
function dyingAfterSend(inner: RedriveQueue, crashAtSend: number) {
  let sends = 0;
  let dead: SQSRecord | undefined;
  const [died, die] = latch();
  const held = new Map<string, SQSRecord>();
  const deleted = new Set<string>();
  const alive = <T>(call: () => Promise<T>): Promise<T> =>
    dead === undefined ? call() : new Promise<T>(() => {});
  const queue: RedriveQueue = {
    arn: inner.arn,
    fifo: inner.fifo,
    receive: (seconds) =>
      alive(async () => {
        const records = await inner.receive(seconds);
        for (const record of records) held.set(record.messageId, record);
        return records;
      }),
    hide: (records, seconds) => alive(() => inner.hide(records, seconds)),
    release: (records) => alive(() => inner.release(records)),
    remove: (record) => {
      if (sends === crashAtSend && dead === undefined) {
        dead = record;
        die();
      }
      return alive(async () => {
        await inner.remove(record);
        held.delete(record.messageId);
        deleted.add(record.messageId);
      });
    },
    sendBack: (arn, copy) =>
      alive(async () => {
        const id = await inner.sendBack(arn, copy);
        sends++;
        return id;
      }),
    depth: () => alive(() => inner.depth()),
    retentionSecondsOf: (arn) => alive(() => inner.retentionSecondsOf(arn)),
  };
  return {
    queue,
    /** The DLQ message whose copy was sent and which was never deleted, once the run died. */
    died: died.then(() => dead as SQSRecord),
    held,
    deleted,
  };
}

async function setUp() {
  // A copy refused while another attempt holds its lease is back in 5 s, not Lambda's 30.
  const { dlq, source } = await deadLetterQueues(aws, 'crash', { VisibilityTimeout: '5' });
  const consumer = stepConsumer();
  const letters = await deadLetterPayments(aws, { dlq, source }, DEAD_LETTERS, {
    event: () => payment({ accountId: `acc-${randomUUID()}`, amountCents: 100 }),
  });
  const events = letters.map(({ event }) => event);
  const eventOf = new Map(letters.map(({ event, dlqMessageId }) => [dlqMessageId, event.eventId]));
  return { dlq, source, consumer, events, eventOf };
}

type Scene = Awaited<ReturnType<typeof setUp>>;

/**
 * Starts an inbox-aware redrive with `--apply` in this process and returns once it died between
 * its second send and that message's delete, with what it held.
 */
async function redriveUntilKilled(scene: Scene) {
  const dying = dyingAfterSend(await SqsRedriveQueue.open(aws.sqs, scene.dlq.url), CRASH_AT_SEND);
  // Never settles: the process running it is dead. Only its death is awaited.
  void redriveDeadLetters({
    queue: dying.queue,
    reading: ledgerReading(ledger.store),
    ttlSeconds: LEDGER_TTL_SECONDS,
    operationId: randomUUID(),
    apply: true,
    runtime: systemRuntime,
  });
  const crashed = await dying.died;
  return {
    crashedEvent: scene.eventOf.get(crashed.messageId) ?? '',
    /** The events whose copies were sent, and their DLQ messages deleted, before it died. */
    redriven: [...dying.deleted].map((id) => scene.eventOf.get(id) ?? ''),
    held: dying.held,
  };
}

/** What the 300 s hold of the dead run's receives lapsing brings: its messages visible again. */
async function letHoldsLapse(scene: Scene, held: ReadonlyMap<string, SQSRecord>): Promise<void> {
  await aws.sqs.send(
    new ChangeMessageVisibilityBatchCommand({
      QueueUrl: scene.dlq.url,
      Entries: [...held.values()].map((record, index) => ({
        Id: String(index),
        ReceiptHandle: record.receiptHandle,
        VisibilityTimeout: 0,
      })),
    }),
  );
}

/** `sqs-inbox dlq redrive --apply` run again: each event's decision and action. */
async function rerun(scene: Scene): Promise<Record<string, [string, string]>> {
  const result = await sqsInbox(
    [...ledgerRedrive(ledger, scene.dlq), '--apply', '--jsonl'],
    standardAwsEnvironment(aws),
  );
  expect(result.code, result.stderr).toBe(0);
  return Object.fromEntries(
    messageLines(result.stdout).map((line) => [
      scene.eventOf.get(line.dlqMessageId) ?? '?',
      [line.decision, line.action],
    ]),
  );
}

/** Messages in a queue, visible or not. */
async function messagesIn(url: string): Promise<number> {
  const depth = await (await SqsRedriveQueue.open(aws.sqs, url)).depth();
  return depth.visible + depth.inFlight;
}

/** Every event's decision but the listed ones' is a plain retry: sent back, then deleted. */
function expectedDecisions(
  scene: Scene,
  sentBeforeTheCrash: readonly string[],
  crashed: [string, [string, string]],
): Record<string, [string, string]> {
  const retried = scene.events
    .map((event) => event.eventId)
    .filter((id) => id !== crashed[0] && !sentBeforeTheCrash.includes(id));
  return {
    ...Object.fromEntries(retried.map((id) => [id, ['retry', 'sent'] as [string, string]])),
    [crashed[0]]: crashed[1],
  };
}

async function expectEachEffectOnce(scene: Scene): Promise<void> {
  await eventually(
    'the source queue to drain',
    () => messagesIn(scene.source.url),
    (n) => n === 0,
  );
  for (const event of scene.events) {
    expect(await ledger.balanceOf(event.accountId), event.eventId).toBe(100);
    expect(scene.consumer.stepRuns.get(event.eventId), event.eventId).toBe(1);
  }
  expect(await messagesIn(scene.dlq.url)).toBe(0);
}

describe('a dlq redrive killed between a send and its delete, then run again (the kill is the process dying, not an AWS fault)', () => {
  it('with the consumer draining throughout: the copy it committed is found applied and deleted, the rest are sent, and every key takes effect once', async () => {
    const scene = await setUp();
    drainingConsumer(aws, scene.source, scene.consumer.processor);
    const { crashedEvent, redriven, held } = await redriveUntilKilled(scene);
    await eventually(
      "the dead run's last copy to be committed",
      () => ledger.inboxEntry('ledger', crashedEvent),
      (entry) => entry?.status === InboxStatus.Completed,
    );
    await letHoldsLapse(scene, held);

    const decisions = await rerun(scene);

    expect(redriven).toHaveLength(CRASH_AT_SEND - 1);
    expect(decisions).toEqual(
      expectedDecisions(scene, redriven, [crashedEvent, ['already-applied', 'deleted']]),
    );
    await expectEachEffectOnce(scene);
  }, 120_000);

  it('with the consumer stopped until after the rerun: the copy still queued is sent again, and the inbox applies the two copies once', async () => {
    const scene = await setUp();
    const { crashedEvent, redriven, held } = await redriveUntilKilled(scene);
    await letHoldsLapse(scene, held);

    const decisions = await rerun(scene);

    expect(redriven).toHaveLength(CRASH_AT_SEND - 1);
    expect(decisions).toEqual(
      expectedDecisions(scene, redriven, [crashedEvent, ['retry', 'sent']]),
    );
    // Every event once, and the crashed one's copy twice: the dead run's and the rerun's.
    expect(await messagesIn(scene.source.url)).toBe(DEAD_LETTERS + 1);
    drainingConsumer(aws, scene.source, scene.consumer.processor);
    await expectEachEffectOnce(scene);
  }, 120_000);
});
