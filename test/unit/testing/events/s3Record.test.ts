import { describe, expect, it } from 'vitest';
import { MessageSource, RecordStatus } from '../../../../src/index.js';
import type { S3Envelope } from '../../../../src/sources/MessageSource.js';
import { s3Record, s3TestEventRecord, sqsEvent } from '../../../../src/testing/index.js';
import { recordingConsumer } from '../../../support/recordingConsumer.js';

describe('s3Record', () => {
  it('delivers S3’s notification, its key URL-encoded, which the s3 source decodes and keys', async () => {
    const { processor, seen } = recordingConsumer({ sources: [MessageSource.S3] });
    const record = s3Record({
      bucket: 'uploads',
      key: 'invoices/a b+c.pdf',
      size: 1024,
      eTag: 'e1',
      versionId: 'v1',
      sequencer: '0A1B',
    });
    const encoded = JSON.parse(record.body).Records[0].s3.object.key;
    expect(encoded).toBe('invoices/a+b%2Bc.pdf');
    const [outcome] = await processor.processRecords(sqsEvent(record));
    expect(outcome).toMatchObject({
      status: RecordStatus.Processed,
      key: 's3:ObjectCreated:Put:uploads/invoices/a+b%2Bc.pdf@0A1B',
    });
    expect(seen[0]?.envelope).toMatchObject({
      kind: MessageSource.S3,
      objects: [
        {
          eventName: 'ObjectCreated:Put',
          bucket: 'uploads',
          key: 'invoices/a b+c.pdf',
          size: 1024,
          eTag: 'e1',
          versionId: 'v1',
          sequencer: '0A1B',
        },
      ],
    });
  });

  it('sends no size or ETag for a deletion, and sequencers that grow event after event', async () => {
    const { processor, seen } = recordingConsumer({ sources: [MessageSource.S3] });
    const created = s3Record({ bucket: 'uploads', key: 'a.csv' });
    const removed = s3Record({
      bucket: 'uploads',
      key: 'a.csv',
      eventName: 'ObjectRemoved:Delete',
    });
    await processor.processRecords(sqsEvent(created, removed));
    const [first, second] = seen.map((message) => message.envelope as S3Envelope);
    expect(second).toMatchObject({ objects: [{ size: undefined, eTag: undefined }] });
    const sequencer = (envelope: S3Envelope | undefined) =>
      BigInt(`0x${envelope?.objects[0]?.sequencer}`);
    expect(sequencer(second)).toBeGreaterThan(sequencer(first));
  });
});

describe('s3TestEventRecord', () => {
  it('is acknowledged by the s3 source without running the handler', async () => {
    const { processor, seen } = recordingConsumer({ sources: [MessageSource.S3] });
    const record = s3TestEventRecord({ bucket: 'uploads' });
    expect(await processor.processRecords(sqsEvent(record))).toEqual([
      { messageId: record.messageId, status: RecordStatus.Ignored },
    ]);
    expect(seen).toEqual([]);
  });
});
