import { describe, expect, it } from 'vitest';
import { RecordStatus } from '../../../../src/index.js';
import { redeliveryOf, sqsEvent, sqsRecord } from '../../../../src/testing/index.js';
import { recordingConsumer } from '../../../support/recordingConsumer.js';

const byOrderId = ({ body }: { body: unknown }) => String((body as { orderId: string }).orderId);

describe('redeliveryOf', () => {
  it('is the same message received once more: same id and body, receive count one higher', () => {
    const record = sqsRecord({ orderId: 'o-1' }, { receiveCount: 2 });
    const again = redeliveryOf(record);
    expect(again).toMatchObject({ messageId: record.messageId, body: record.body });
    expect(again.attributes).toEqual({ ...record.attributes, ApproximateReceiveCount: '3' });
    expect(again.receiptHandle).not.toBe(record.receiptHandle);
  });

  it('is a duplicate once the message committed, and runs the handler again after a failure', async () => {
    let failing = true;
    const { processor, seen } = recordingConsumer({ key: byOrderId }, () => {
      if (failing) throw new Error('the first attempt fails');
    });
    const record = sqsRecord({ orderId: 'o-1' });
    const second = redeliveryOf(record);
    expect((await processor.processRecords(sqsEvent(record)))[0]?.status).toBe(RecordStatus.Failed);
    failing = false;
    expect((await processor.processRecords(sqsEvent(second)))[0]?.status).toBe(
      RecordStatus.Processed,
    );
    expect((await processor.processRecords(sqsEvent(redeliveryOf(second))))[0]?.status).toBe(
      RecordStatus.Duplicate,
    );
    expect(seen.map((message) => message.attributes.ApproximateReceiveCount)).toEqual(['1', '2']);
  });
});
