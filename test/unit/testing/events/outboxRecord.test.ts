import { describe, expect, it } from 'vitest';
import { OutboxMessageIdField, outboxMessageId } from '../../../../src/constants/index.js';
import { OutgoingMessageError } from '../../../../src/errors.js';
import { MessageSource, RecordStatus } from '../../../../src/index.js';
import { outboxRecord, sqsEvent } from '../../../../src/testing/index.js';
import { recordingConsumer } from '../../../support/recordingConsumer.js';

const TRACE_PARENT = '00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01';

describe('outboxRecord', () => {
  it('delivers what the relay sends, which the outbox source keys by the outbox id', async () => {
    const { processor, seen } = recordingConsumer({ sources: [MessageSource.Outbox] });
    const id = outboxMessageId('ledger', 'pay-1', { name: 'credited' });
    const record = outboxRecord(
      { paymentId: 'pay-1', amountCents: 1250 },
      { outboxId: id, attributes: { tenant: 'acme' }, traceParent: TRACE_PARENT },
    );
    const [outcome] = await processor.processRecords(sqsEvent(record));
    expect(outcome).toMatchObject({ status: RecordStatus.Processed, key: `outbox:${id}` });
    expect(seen[0]).toMatchObject({
      body: { paymentId: 'pay-1', amountCents: 1250 },
      envelope: { kind: MessageSource.Outbox, messageId: id },
      messageAttributes: {
        tenant: { dataType: 'String', stringValue: 'acme' },
        [OutboxMessageIdField.Attribute]: { dataType: 'String', stringValue: id },
      },
      attributes: {
        // The relay sends the committing span's traceparent in X-Ray's format.
        AWSTraceHeader:
          'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
      },
    });
    expect(record.attributes).not.toHaveProperty('MessageGroupId');
  });

  it('comes from a FIFO queue with a group, the outbox id its deduplication id', () => {
    const record = outboxRecord('credited', { groupId: 'account-1', outboxId: 'a'.repeat(64) });
    expect(record.eventSourceARN).toMatch(/\.fifo$/);
    expect(record.body).toBe('credited');
    expect(record.attributes).toMatchObject({
      MessageGroupId: 'account-1',
      MessageDeduplicationId: 'a'.repeat(64),
    });
    const fair = outboxRecord('credited', {
      groupId: 'account-1',
      queueArn: 'arn:aws:sqs:us-east-1:123456789012:credits',
    });
    expect(fair.attributes.MessageGroupId).toBe('account-1');
    expect(fair.attributes).not.toHaveProperty('MessageDeduplicationId');
  });

  it('gives an outbox id of the relay’s shape by default, and refuses what tx.publish refuses', () => {
    const record = outboxRecord({ a: 1 });
    expect(record.messageAttributes[OutboxMessageIdField.Attribute]?.stringValue).toMatch(
      /^[0-9a-f]{64}$/,
    );
    expect(() => outboxRecord('x', { attributes: { 'outbox.mine': 'x' } })).toThrow(
      OutgoingMessageError,
    );
  });
});
