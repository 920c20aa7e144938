import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { createBatchProcessor, DynamoDBInboxStore, RecordStatus } from '../../src/index.js';
import { injectFault } from '../../tools/sdk/clientSpy.js';
import { payment, useLedger } from '../support/ledgerFixture.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';

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
  it('retries an injected TransactionConflict in the invocation and then commits once', async () => {
    const client = aws.dynamodb;
    const fault = injectFault(client, 'TransactWriteItemsCommand', conflict, 2);
    const store = new DynamoDBInboxStore({ tableName: ledger.tables.inbox, client });
    const event = payment({ accountId: 'acc-conflict' });
    let handlerRuns = 0;
    const processor = createBatchProcessor(
      async (message, tx) => {
        handlerRuns++;
        await ledger.applyPayment(message as never, tx);
      },
      { store, consumer: 'faults', key: () => event.eventId, logger: recordingLogger() },
    );

    const [outcome] = await processor.processRecords(sqsEvent(sqsRecord(event)));

    expect(fault.injected()).toBe(2);
    expect(outcome?.status).toBe(RecordStatus.Processed);
    expect(handlerRuns).toBe(3);
    expect(await ledger.balanceOf('acc-conflict')).toBe(event.amountCents);
  });
});
