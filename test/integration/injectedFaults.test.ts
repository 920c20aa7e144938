import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { InboxMetric } from '../../src/constants/index.js';
import {
  createBatchProcessor,
  DynamoDBInboxStore,
  PermanentError,
  RecordStatus,
} from '../../src/index.js';
import { injectFault, loseResponse } from '../../tools/sdk/clientSpy.js';
import { payment, useLedger } from '../support/ledgerFixture.js';
import { countingMetrics, recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';

const { aws, ledger } = useLedger();

const conflict = () =>
  new TransactionCanceledException({
    message:
      'Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]',
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: [
      { Code: 'None' },
      { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' },
    ],
  });

describe('transient DynamoDB failures (injected: no emulator produces them)', () => {
  it('retries an injected TransactionConflict in the invocation, counting each retry, and then commits once', async () => {
    const client = aws.dynamodb;
    const fault = injectFault(client, 'TransactWriteItemsCommand', conflict, 2);
    const store = new DynamoDBInboxStore({ tableName: ledger.tables.inbox, client });
    const event = payment({ accountId: 'acc-conflict' });
    let handlerRuns = 0;
    const metrics = countingMetrics();
    const processor = createBatchProcessor(
      async (message, tx) => {
        handlerRuns++;
        await ledger.applyPayment(message as never, tx);
      },
      {
        store,
        consumer: 'faults',
        key: () => event.eventId,
        observability: { logger: recordingLogger(), metrics: metrics },
      },
    );

    const [outcome] = await processor.processRecords(sqsEvent(sqsRecord(event)));

    expect(fault.injected()).toBe(2);
    expect(metrics.count(InboxMetric.ConflictsRetried)).toBe(2);
    expect(outcome?.status).toBe(RecordStatus.Processed);
    expect(handlerRuns).toBe(3);
    expect(await ledger.balanceOf('acc-conflict')).toBe(event.amountCents);
  });
});

describe('a commit whose answer was lost (injected: no emulator produces it)', () => {
  it('is recognised as its own commit when the handler, run again without the pre-check, throws PermanentError: acknowledged, not dead-lettered', async () => {
    const client = aws.dynamodb;
    const lost = loseResponse(client, 'TransactWriteItemsCommand');
    const store = new DynamoDBInboxStore({ tableName: ledger.tables.inbox, client });
    const dlq = await aws.createQueue(aws.uniqueName('own-commit-dlq'));
    const event = payment({ accountId: `acc-own-commit-${Math.random()}` });
    let runs = 0;
    const processor = createBatchProcessor(
      async (message, tx) => {
        runs++;
        // A handler that reads its own effects refuses the second run.
        if (runs > 1) throw new PermanentError('payment already on the ledger');
        await ledger.applyPayment(message as never, tx);
      },
      {
        store,
        consumer: 'own-commit',
        key: () => event.eventId,
        performance: { precheck: 'off' },
        deadLetter: { queueUrl: dlq.url, client: aws.sqs },
        observability: { logger: recordingLogger() },
      },
    );

    const [outcome] = await processor.processRecords(sqsEvent(sqsRecord(event)));

    expect(outcome?.error).toBeUndefined();
    expect(lost.injected()).toBe(1);
    expect(runs).toBe(2);
    expect(outcome?.status).toBe(RecordStatus.Duplicate);
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
    expect(await aws.receive(dlq.url)).toHaveLength(0);
  });
});
