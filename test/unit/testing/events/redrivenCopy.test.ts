import { describe, expect, it } from 'vitest';
import { DeadLetterAttribute } from '../../../../src/constants/index.js';
import { RecordStatus, redriveUnsafeMessageIdKey } from '../../../../src/index.js';
import { fifoRecord, redrivenCopy, sqsEvent, sqsRecord } from '../../../../src/testing/index.js';
import { recordingConsumer } from '../../../support/recordingConsumer.js';

const TRACE_HEADER = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
const byEventId = ({
  messageAttributes,
}: {
  messageAttributes: Record<string, { stringValue?: string }>;
}) => String(messageAttributes.eventId?.stringValue);

describe('redrivenCopy', () => {
  it('is a new message with the redrive’s attributes, keyed as the message: a duplicate of it once committed', async () => {
    const { processor, seen } = recordingConsumer({ key: byEventId });
    const record = sqsRecord(
      { orderId: 'o-1' },
      { messageAttributes: { eventId: 'e-1' }, traceHeader: TRACE_HEADER, receiveCount: 5 },
    );
    const copy = redrivenCopy(record, { dlqMessageId: 'dlq-1', operationId: 'op-1' });
    expect((await processor.processRecords(sqsEvent(record)))[0]?.status).toBe(
      RecordStatus.Processed,
    );
    expect(await processor.processRecords(sqsEvent(copy))).toEqual([
      { messageId: copy.messageId, status: RecordStatus.Duplicate, key: 'e-1' },
    ]);
    expect(seen).toHaveLength(1);
    expect(copy).toMatchObject({ body: record.body, eventSourceARN: record.eventSourceARN });
    expect(copy.messageId).not.toBe(record.messageId);
    expect(copy.attributes).toMatchObject({
      ApproximateReceiveCount: '1',
      AWSTraceHeader: TRACE_HEADER,
    });
    expect(copy.messageAttributes).toEqual({
      eventId: expect.objectContaining({ stringValue: 'e-1' }),
      [DeadLetterAttribute.RedriveOf]: expect.objectContaining({
        dataType: 'String',
        stringValue: 'dlq-1',
      }),
      [DeadLetterAttribute.RedriveOperation]: expect.objectContaining({ stringValue: 'op-1' }),
    });
  });

  it('reaches the handler with the redrive’s attributes; the DLQ message id defaults to the record’s (a redrive-policy move)', async () => {
    const { processor, seen } = recordingConsumer({ key: byEventId });
    const record = sqsRecord({ orderId: 'o-1' }, { messageAttributes: { eventId: 'e-1' } });
    const [outcome] = await processor.processRecords(sqsEvent(redrivenCopy(record)));
    expect(outcome?.status).toBe(RecordStatus.Processed);
    const attributes = seen[0]?.messageAttributes ?? {};
    expect(attributes[DeadLetterAttribute.RedriveOf]?.stringValue).toBe(record.messageId);
    expect(attributes[DeadLetterAttribute.RedriveOperation]?.stringValue).toMatch(
      /^[0-9a-f-]{36}$/,
    );
  });

  it('of a message the library dead-lettered keeps its key annotations and drops its error', () => {
    const record = sqsRecord('{}', {
      messageAttributes: {
        [DeadLetterAttribute.Error]: 'Error',
        [DeadLetterAttribute.OriginalMessageId]: 'm-0',
        [DeadLetterAttribute.KeyHash]: 'abc',
        [DeadLetterAttribute.Consumer]: 'ledger',
      },
    });
    expect(Object.keys(redrivenCopy(record).messageAttributes)).toEqual([
      DeadLetterAttribute.RedriveOf,
      DeadLetterAttribute.RedriveOperation,
      DeadLetterAttribute.KeyHash,
      DeadLetterAttribute.Consumer,
    ]);
  });

  it('on a FIFO queue keeps the group, with the redrive’s deduplication id and a later sequence number', async () => {
    const { processor, seen } = recordingConsumer({ key: ({ body }) => String(body) });
    const record = fifoRecord('"pay-1"', { groupId: 'account-1' });
    const copy = redrivenCopy(record);
    expect(copy.eventSourceARN).toBe(record.eventSourceARN);
    expect(copy.attributes.MessageGroupId).toBe('account-1');
    expect(copy.attributes.MessageDeduplicationId).toMatch(/^[0-9a-f]{64}$/);
    expect(copy.attributes.MessageDeduplicationId).not.toBe(
      record.attributes.MessageDeduplicationId,
    );
    expect(BigInt(String(copy.attributes.SequenceNumber))).toBeGreaterThan(
      BigInt(String(record.attributes.SequenceNumber)),
    );
    const outcomes = await processor.processRecords(sqsEvent(record, copy));
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      RecordStatus.Processed,
      RecordStatus.Duplicate,
    ]);
    expect(seen).toHaveLength(1);
  });

  it('is applied again by a consumer keyed by the SQS message id (redriveUnsafeMessageIdKey)', async () => {
    const { processor, seen } = recordingConsumer({ key: redriveUnsafeMessageIdKey });
    const record = sqsRecord({ orderId: 'o-1' });
    await processor.processRecords(sqsEvent(record));
    const [outcome] = await processor.processRecords(sqsEvent(redrivenCopy(record)));
    expect(outcome?.status).toBe(RecordStatus.Processed);
    expect(seen).toHaveLength(2);
  });
});
