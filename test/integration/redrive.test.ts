import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import {
  createBatchProcessor,
  type InboxOptions,
  RecordStatus,
  redriveUnsafeMessageIdKey,
} from '../../src/index.js';
import { toRecord } from '../../tools/local/LocalEventSourceMapping.js';
import { PaymentCaptured, payment, useLedger } from '../support/ledgerFixture.js';
import {
  letRedrivePolicyMove,
  queueWithRedrivePolicy,
  receiveOne,
  redriveAsSqsDoes,
} from '../support/redrive.js';
import { recordingLogger, sqsEvent } from '../support/sqsRecords.js';

const { aws, ledger } = useLedger();

type Key = InboxOptions<typeof PaymentCaptured>['key'];

/**
 * The chain of the redrive defect: a message commits, its invocation never acknowledges it (a
 * timeout after the commit), the redrive policy moves it to the DLQ, an operator redrives it.
 * Returns the balance the account ends with and the redriven copy's outcome.
 */
async function commitThenRedrive(fifo: boolean, key: Key) {
  const queues = await queueWithRedrivePolicy(aws, fifo);
  const event = payment({ accountId: `acc-redrive-${fifo}-${Date.now()}` });
  await aws.sqs.send(
    new SendMessageCommand({
      QueueUrl: queues.source.url,
      MessageBody: JSON.stringify(event),
      ...(fifo ? { MessageGroupId: event.accountId, MessageDeduplicationId: event.eventId } : {}),
    }),
  );
  const processor = createBatchProcessor(ledger.applyPayment, {
    store: ledger.store,
    consumer: 'ledger',
    schema: PaymentCaptured,
    key,
    observability: { logger: recordingLogger() },
  });
  const first = await receiveOne(aws.sqs, queues.source.url);
  if (!first) throw new Error('the message did not arrive');
  const [committed] = await processor.processRecords(sqsEvent(toRecord(first, queues.source.arn)));
  expect(committed?.status).toBe(RecordStatus.Processed);

  const dead = await letRedrivePolicyMove(aws.sqs, queues);
  expect(dead.MessageId).toBe(first.MessageId);
  const redriven = await redriveAsSqsDoes(aws.sqs, dead, queues);
  expect(redriven.messageId).not.toBe(first.MessageId);
  const [outcome] = await processor.processRecords(sqsEvent(redriven));
  return { outcome, balance: await ledger.balanceOf(event.accountId), amount: event.amountCents };
}

describe.each([
  { queue: 'standard', fifo: false },
  { queue: 'FIFO', fifo: true },
])('a committed message redriven from the DLQ ($queue queue)', ({ fifo }) => {
  it('is acknowledged as a duplicate when the key is the body’s event id', async () => {
    const { outcome, balance, amount } = await commitThenRedrive(fifo, ({ body }) => body.eventId);

    expect(outcome?.status).toBe(RecordStatus.Duplicate);
    expect(balance).toBe(amount);
  });

  it('is applied again with redriveUnsafeMessageIdKey, the risk its name states', async () => {
    const { outcome, balance, amount } = await commitThenRedrive(fifo, redriveUnsafeMessageIdKey);

    expect(outcome?.status).toBe(RecordStatus.Processed);
    expect(balance).toBe(2 * amount);
  });
});

describe('the default configuration', () => {
  it('has no key: a processor without one is refused at creation, so no redrive applies a message twice', () => {
    const options = { store: ledger.store, consumer: 'ledger' } as unknown as InboxOptions<
      typeof PaymentCaptured
    >;

    expect(() => createBatchProcessor(ledger.applyPayment, options)).toThrow(
      /"key".*body\.paymentId.*redriveUnsafeMessageIdKey/s,
    );
  });
});
