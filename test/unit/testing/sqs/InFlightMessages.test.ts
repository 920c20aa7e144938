/**
 * The in-memory queues' visibility changes (src/testing/sqs/InFlightMessages.ts and
 * changeVisibility.ts), through a real SQSClient: the answers the SQS conformance suite
 * (test/integration/simulatedSqs.test.ts) holds the simulation and MiniStack to, on AWS's side
 * where MiniStack differs.
 */
import {
  ChangeMessageVisibilityBatchCommand,
  type ChangeMessageVisibilityBatchRequestEntry,
  ChangeMessageVisibilityCommand,
  ReceiptHandleIsInvalid,
} from '@aws-sdk/client-sqs';
import { describe, expect, it, vi } from 'vitest';
import {
  InMemoryQueues,
  NotModelledError,
  redeliveryOf,
  sqsRecord,
} from '../../../../src/testing/index.js';
import {
  changeVisibility,
  changeVisibilityBatch,
} from '../../../../src/testing/sqs/changeVisibility.js';
import { InFlightMessages } from '../../../../src/testing/sqs/InFlightMessages.js';

const ORDERS_URL = 'https://sqs.us-east-1.amazonaws.com/123456789012/orders';

/** Queues that delivered one record from `orders`, on a clock the test moves. */
function deliveredOnce() {
  let nowMillis = 0;
  const queues = new InMemoryQueues({ now: () => nowMillis });
  const record = sqsRecord({ orderId: 'o-1' });
  queues.deliver([record]);
  const change = (ReceiptHandle: string, VisibilityTimeout: number, QueueUrl = ORDERS_URL) =>
    queues.client
      .send(new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle, VisibilityTimeout }))
      .then(() => undefined)
      .catch((error: unknown) => error as Error);
  const changeBatch = (Entries: ChangeMessageVisibilityBatchRequestEntry[]) =>
    queues.client
      .send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: ORDERS_URL, Entries }))
      .catch((error: unknown) => error as Error);
  const advanceMillis = (millis: number) => {
    nowMillis += millis;
  };
  return { queues, record, change, changeBatch, advanceMillis };
}

describe('InMemoryQueues visibility changes', () => {
  it('applies a change to the handle of a record delivered from its queue, and lists it', async () => {
    const { queues, record, change, advanceMillis } = deliveredOnce();
    advanceMillis(1_500);

    expect(await change(record.receiptHandle, 62)).not.toBeInstanceOf(Error);
    expect(queues.visibilityChanges()).toEqual([
      {
        queueUrl: ORDERS_URL,
        messageId: record.messageId,
        receiptHandle: record.receiptHandle,
        visibilityTimeoutSeconds: 62,
        changedAtMillis: 1_500,
      },
    ]);
  });

  it('applies a change to a record from a queue of another region, without the SDK warning of the region', async () => {
    const warn = vi.spyOn(console, 'warn');
    const queues = new InMemoryQueues();
    const record = sqsRecord({}, { queueArn: 'arn:aws:sqs:eu-west-1:123456789012:credits' });
    queues.deliver([record]);

    await queues.client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/credits',
        ReceiptHandle: record.receiptHandle,
        VisibilityTimeout: 5,
      }),
    );
    const warnings = [...warn.mock.calls];
    warn.mockRestore();
    expect(queues.visibilityChanges()).toMatchObject([{ visibilityTimeoutSeconds: 5 }]);
    expect(warnings).toEqual([]);
  });

  it('refuses a handle the queue never issued with ReceiptHandleIsInvalid', async () => {
    const { queues, change } = deliveredOnce();
    const never = sqsRecord({ orderId: 'o-2' });

    expect(await change('not-a-handle', 10)).toBeInstanceOf(ReceiptHandleIsInvalid);
    expect(await change(never.receiptHandle, 10)).toBeInstanceOf(ReceiptHandleIsInvalid);
    expect(queues.visibilityChanges()).toEqual([]);
  });

  it('refuses a handle whose message was delivered again since with InvalidParameterValue', async () => {
    const { queues, record, change } = deliveredOnce();
    const again = redeliveryOf(record);
    queues.deliver([again]);

    const stale = await change(record.receiptHandle, 0);
    expect(stale).toMatchObject({ name: 'InvalidParameterValue' });
    expect(stale?.message).toContain('is not available for visibility timeout change');
    expect(await change(again.receiptHandle, 0)).not.toBeInstanceOf(Error);
  });

  it.each([43_201, -1, 1.5])(
    'refuses a timeout of %s s, outside 0–43,200 whole seconds, with InvalidParameterValue',
    async (seconds) => {
      const { record, change } = deliveredOnce();

      expect(await change(record.receiptHandle, seconds)).toMatchObject({
        name: 'InvalidParameterValue',
        message: expect.stringContaining('Must be between 0 and 43200'),
      });
    },
  );

  it('refuses to hide a message more than 12 hours in all since its receive', async () => {
    const { record, change, advanceMillis } = deliveredOnce();
    advanceMillis(1_100);

    const refused = await change(record.receiptHandle, 43_200);
    expect(refused).toMatchObject({ name: 'InvalidParameterValue' });
    expect(refused?.message).toContain(
      'Total VisibilityTimeout for the message is beyond the limit',
    );
    expect(await change(record.receiptHandle, 43_198)).not.toBeInstanceOf(Error);
  });

  it('changes nothing, and succeeds, with a handle whose change ran out, the message not delivered since', async () => {
    const { queues, record, change, advanceMillis } = deliveredOnce();
    await change(record.receiptHandle, 1);
    advanceMillis(1_000);

    expect(await change(record.receiptHandle, 30)).not.toBeInstanceOf(Error);
    expect(queues.visibilityChanges().map((c) => c.visibilityTimeoutSeconds)).toEqual([1]);
  });

  it('applies each entry of a batch on its own and lists the refused ones in Failed with Id, Code and SenderFault', async () => {
    const { record, changeBatch } = deliveredOnce();

    const result = await changeBatch([
      { Id: 'good', ReceiptHandle: record.receiptHandle, VisibilityTimeout: 0 },
      { Id: 'bad', ReceiptHandle: 'not-a-handle', VisibilityTimeout: 0 },
    ]);

    expect(result).toMatchObject({
      Successful: [{ Id: 'good' }],
      Failed: [
        {
          Id: 'bad',
          Code: 'ReceiptHandleIsInvalid',
          SenderFault: true,
          Message: expect.any(String),
        },
      ],
    });
  });

  it.each([
    { entries: 11, ids: 'distinct', error: 'TooManyEntriesInBatchRequest' },
    { entries: 2, ids: 'repeated', error: 'BatchEntryIdsNotDistinct' },
    { entries: 0, ids: 'distinct', error: 'EmptyBatchRequest' },
    { entries: 1, ids: 'with a dot', error: 'InvalidBatchEntryId' },
  ])(
    'refuses a whole batch of $entries entries with $ids Ids: $error',
    async ({ entries, ids, error }) => {
      const { queues, record, changeBatch } = deliveredOnce();
      const batch = Array.from({ length: entries }, (_, n) => ({
        Id: { distinct: `e${n}`, repeated: 'same', 'with a dot': 'e.1' }[ids],
        ReceiptHandle: record.receiptHandle,
        VisibilityTimeout: 0,
      }));

      expect(await changeBatch(batch)).toMatchObject({ name: error });
      expect(queues.visibilityChanges()).toEqual([]);
    },
  );

  it('answers QueueDoesNotExist for a queue nothing was delivered from, MissingParameter without a timeout', async () => {
    const { record, change } = deliveredOnce();
    const elsewhere = 'https://sqs.us-east-1.amazonaws.com/123456789012/other';

    expect(await change(record.receiptHandle, 10, elsewhere)).toMatchObject({
      name: 'QueueDoesNotExist',
    });
    expect(await change(record.receiptHandle, undefined as never)).toMatchObject({
      name: 'MissingParameter',
    });
  });

  it('raises NotModelledError naming a parameter it does not model (the SDK sends none: the wire input is built here)', () => {
    const inFlight = new InFlightMessages();
    const entry = { Id: 'e0', ReceiptHandle: 'h', VisibilityTimeout: 0 };
    const future = { Entries: [{ ...entry, Future: 1 }] } as never;

    expect(() => changeVisibilityBatch(inFlight, future, 0)).toThrow(NotModelledError);
    expect(() => changeVisibilityBatch(inFlight, future, 0)).toThrow(
      /does not model Entries\.Future of ChangeMessageVisibilityBatch/,
    );
    expect(() =>
      changeVisibility(
        inFlight,
        { ReceiptHandle: 'h', VisibilityTimeout: 0, Future: 1 } as never,
        0,
      ),
    ).toThrow(/does not model Future of ChangeMessageVisibility;/);
  });
});
