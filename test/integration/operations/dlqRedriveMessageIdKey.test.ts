import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { redriveUnsafeMessageIdKey } from '../../../src/index.js';
import { deadLetterQueues } from '../../support/deadLetterPayments.js';
import { sendLibraryDeadLetter } from '../../support/deadLetterScene.js';
import { ledgerProcessor, payment, useLedger } from '../../support/ledgerFixture.js';
import { ledgerRedrive } from '../../support/ledgerRedrive.js';
import { messageLines } from '../../support/messageLines.js';
import { sqsInbox, standardAwsEnvironment } from '../../support/operatorCli.js';
import { receiveMessages, takeMessages } from '../../support/receiveMessages.js';
import { sqsEvent, sqsRecord } from '../../support/sqsRecords.js';

const { aws, ledger } = useLedger();

describe('sqs-inbox dlq redrive of a consumer keyed by the SQS message id', () => {
  it('deletes a message whose id committed, and sends none back: a copy would be keyed by its new id', async () => {
    const { dlq, source } = await deadLetterQueues(aws, 'id');
    const processor = ledgerProcessor(ledger.applyPayment, {
      store: ledger.store,
      consumer: 'ledger',
      key: redriveUnsafeMessageIdKey,
    });
    const applied = payment({ accountId: `acc-${randomUUID()}`, amountCents: 100 });
    const appliedId = randomUUID();
    const [result] = await processor.processRecords(
      sqsEvent(sqsRecord(applied, { messageId: appliedId })),
    );
    expect(result?.status).toBe('processed');
    const never = payment({ accountId: `acc-${randomUUID()}`, amountCents: 100 });
    const neverId = randomUUID();
    const letter = (body: unknown, originalMessageId: string) =>
      sendLibraryDeadLetter(aws, dlq, {
        body: JSON.stringify(body),
        reason: 'TransientStoreError',
        consumer: 'ledger',
        source,
        key: originalMessageId,
        originalMessageId,
      });
    const appliedCopy = await letter(applied, appliedId);
    const neverCopy = await letter(never, neverId);

    const run = await sqsInbox(
      [...ledgerRedrive(ledger, dlq, { keyIsMessageId: true }), '--apply', '--jsonl'],
      standardAwsEnvironment(aws),
    );

    expect(run.code, run.stderr).toBe(1);
    const byId = new Map(messageLines(run.stdout).map((line) => [line.dlqMessageId, line]));
    expect(byId.get(appliedCopy)).toMatchObject({
      decision: 'already-applied',
      action: 'deleted',
    });
    expect(byId.get(neverCopy)).toMatchObject({ decision: 'message-id-key', action: 'kept' });
    expect(byId.get(neverCopy)?.why).toContain('declare a key');
    expect(await receiveMessages(aws.sqs, source.url)).toHaveLength(0);
    const left = await takeMessages(aws.sqs, dlq.url, 1);
    expect(left.map((message) => message.MessageId)).toEqual([neverCopy]);
  }, 120_000);
});
