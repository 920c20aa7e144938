import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createBatchProcessor, MessageSource, RecordStatus } from '../../../../src/index.js';
import { eventBridgeRecord, InboxTest, sqsEvent } from '../../../../src/testing/index.js';
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

  it('delivers to a FIFO queue target with the rule’s group: deduplicated by content, keyed by the event id, a group run in order', async () => {
    const inbox = new InboxTest();
    const processor = createBatchProcessor(
      async ({ body }) => {
        if ((body as { fail?: boolean }).fail) throw new Error('the downstream is down');
      },
      { ...inbox.options, sources: [MessageSource.EventBridge] },
    );
    const target = { source: 'shop.orders', detailType: 'OrderPlaced', groupId: 'o-1' };
    const first = eventBridgeRecord({ orderId: 'o-1' }, { ...target, id: 'evt-1' });
    const records = [
      first,
      eventBridgeRecord({ fail: true }, target),
      eventBridgeRecord({}, target),
    ];
    const run = await inbox.run(processor, records);
    expect(run.records.map((record) => record.status)).toEqual(['processed', 'failed', 'skipped']);
    expect(run.records[0]?.key).toBe('eventbridge:evt-1');
    expect(first.attributes).toMatchObject({
      MessageGroupId: 'o-1',
      MessageDeduplicationId: createHash('sha256').update(first.body).digest('hex'),
    });
    expect(first.eventSourceARN).toMatch(/\.fifo$/);
  });
});
