import { describe, expect, it } from 'vitest';
import { MessageSource, RecordStatus } from '../../../../src/index.js';
import { eventBridgeRecord, sqsEvent } from '../../../../src/testing/index.js';
import { recordingConsumer } from '../../../support/recordingConsumer.js';

describe('eventBridgeRecord', () => {
  it('delivers the whole event, which the eventbridge source unwraps and keys by its id', async () => {
    const { processor, seen } = recordingConsumer({ sources: [MessageSource.EventBridge] });
    const record = eventBridgeRecord(
      { orderId: 'o-1' },
      {
        source: 'shop.orders',
        detailType: 'OrderPlaced',
        id: 'evt-1',
        timeMillis: Date.UTC(2026, 10, 23, 10, 0, 0, 250),
        resources: ['arn:aws:dynamodb:us-east-1:123456789012:table/orders'],
      },
    );
    const [outcome] = await processor.processRecords(sqsEvent(record));
    expect(outcome).toMatchObject({ status: RecordStatus.Processed, key: 'eventbridge:evt-1' });
    expect(seen[0]?.body).toEqual({ orderId: 'o-1' });
    expect(seen[0]?.envelope).toEqual({
      kind: MessageSource.EventBridge,
      id: 'evt-1',
      source: 'shop.orders',
      detailType: 'OrderPlaced',
      time: '2026-11-23T10:00:00Z',
      account: '123456789012',
      region: 'us-east-1',
      resources: ['arn:aws:dynamodb:us-east-1:123456789012:table/orders'],
      version: '0',
    });
  });

  it('gives every event its own id by default', () => {
    const options = { source: 'shop.orders', detailType: 'OrderPlaced' };
    const ids = [eventBridgeRecord({}, options), eventBridgeRecord({}, options)].map(
      (record) => JSON.parse(record.body).id,
    );
    expect(new Set(ids).size).toBe(2);
  });
});
