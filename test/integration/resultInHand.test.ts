import { randomUUID } from 'node:crypto';
import { DynamoDBClient, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  DynamoDBInboxStore,
  InboxStatus,
  inboxPk,
  type MessageHandler,
  RecordStatus,
} from '../../src/index.js';
import { injectFault } from '../../tools/sdk/clientSpy.js';
import {
  ledgerProcessor,
  type PaymentCaptured,
  payment,
  useLedger,
} from '../support/ledgerFixture.js';
import { sqsEvent, sqsRecord } from '../support/sqsRecords.js';

const { aws, ledger } = useLedger();
const CONSUMER = 'charger';

const throttled = () =>
  new ProvisionedThroughputExceededException({
    message: 'injected: the level of configured provisioned throughput for the table was exceeded',
    $metadata: { httpStatusCode: 400 },
  });

/** A journal write: the only UpdateItem that sets one step of the journal. */
const isJournalWrite = (input: Record<string, unknown>) =>
  input.UpdateExpression === 'SET #steps.#step = :step';

/** One step (a charge), then a credit in `tx`. */
function chargingHandler(charges: string[]): MessageHandler<PaymentCaptured> {
  return async ({ body, step }, tx) => {
    const { chargeId } = await step('charge', () => {
      charges.push(body.paymentId);
      return { chargeId: `ch-${charges.length}` };
    });
    tx.update({
      TableName: ledger.tables.accounts,
      Key: { accountId: body.accountId },
      UpdateExpression: 'ADD balanceCents :amount SET chargeId = :chargeId',
      ExpressionAttributeValues: { ':amount': body.amountCents, ':chargeId': chargeId },
    });
  };
}

/** A store whose client fails the journal writes it is told to (an injected throttle). */
function throttledStore(times: number) {
  const client = new DynamoDBClient({
    endpoint: aws.endpoints.dynamodb,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const fault = injectFault(client, 'UpdateItemCommand', throttled, times, isJournalWrite);
  return { store: new DynamoDBInboxStore({ tableName: ledger.tables.inbox, client }), fault };
}

describe('a result in hand is journaled before anything can run its step again', () => {
  it('journals the result when every try of its journal write was throttled, and the rerun of the handler replays it instead of running the step again (injected throttling)', async () => {
    const event = payment({ accountId: `acc-${randomUUID()}` });
    const charges: string[] = [];
    const { store, fault } = throttledStore(3);

    const [outcome] = await ledgerProcessor(chargingHandler(charges), {
      store,
      consumer: CONSUMER,
      transactionAttempts: 3,
    }).processRecords(sqsEvent(sqsRecord(event)));

    expect(fault.injected()).toBe(3);
    expect(outcome?.status).toBe(RecordStatus.Processed);
    expect(charges).toEqual([event.paymentId]);
    expect(await ledger.store.find(inboxPk(CONSUMER, event.eventId))).toMatchObject({
      status: InboxStatus.Completed,
      attempts: 1,
      steps: { charge: {} },
    });
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
  });

  it('carries the result with the release when its journal write never landed in the invocation, so the next delivery replays it (injected throttling)', async () => {
    const event = payment({ accountId: `acc-${randomUUID()}` });
    const charges: string[] = [];
    const { store, fault } = throttledStore(Number.POSITIVE_INFINITY);

    const [failed] = await ledgerProcessor(chargingHandler(charges), {
      store,
      consumer: CONSUMER,
      transactionAttempts: 2,
    }).processRecords(sqsEvent(sqsRecord(event)));

    expect(failed?.status).toBe(RecordStatus.Failed);
    expect(fault.injected()).toBe(4);
    expect(await ledger.store.find(inboxPk(CONSUMER, event.eventId))).toMatchObject({
      status: InboxStatus.Failed,
      lastError: { name: 'TransientStoreError' },
      steps: { charge: {} },
    });

    const [again] = await ledgerProcessor(chargingHandler(charges), {
      store: ledger.store,
      consumer: CONSUMER,
    }).processRecords(sqsEvent(sqsRecord(event)));

    expect(again?.status).toBe(RecordStatus.Processed);
    expect(charges).toEqual([event.paymentId]);
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
  });
});
