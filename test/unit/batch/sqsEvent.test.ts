import { describe, expect, it } from 'vitest';
import { groupRecords, readSqsRecords } from '../../../src/batch/sqsEvent.js';
import { MalformedEventError } from '../../../src/errors.js';
import { DynamoDBInboxStore, processSqsBatch } from '../../../src/index.js';
import { sqsEvent, sqsRecord } from '../../support/sqsRecords.js';

const options = {
  store: new DynamoDBInboxStore({ tableName: 'inbox' }),
  consumer: 'unit',
  key: () => 'k',
};

describe('readSqsRecords', () => {
  it.each([
    { case: 'null', event: null, path: 'the event' },
    { case: 'an API Gateway event', event: { httpMethod: 'GET' }, path: 'event.Records' },
    {
      case: 'a record without messageId',
      event: { Records: [{ ...sqsRecord('x'), messageId: '' }] },
      path: 'event.Records[0].messageId',
    },
    {
      case: 'a record without body',
      event: { Records: [{ ...sqsRecord('x'), body: undefined }] },
      path: 'event.Records[0].body',
    },
    {
      case: 'an SNS record',
      event: { Records: [{ ...sqsRecord('x'), eventSource: 'aws:sns' }] },
      path: 'event.Records[0].eventSource',
    },
  ])('fails loudly on $case, naming $path', ({ event, path }) => {
    expect(() => readSqsRecords(event)).toThrow(MalformedEventError);
    expect(() => readSqsRecords(event)).toThrow(path);
  });

  it('makes processSqsBatch reject instead of answering with a malformed itemIdentifier', async () => {
    await expect(
      processSqsBatch({ Records: [{ body: '{}' }] }, async () => {}, options),
    ).rejects.toThrow(MalformedEventError);
  });

  it('answers an empty batch with no failures and no I/O', async () => {
    await expect(processSqsBatch(sqsEvent(), async () => {}, options)).resolves.toEqual({
      batchItemFailures: [],
    });
  });
});

describe('groupRecords', () => {
  it('keeps each FIFO message group together, in arrival order', () => {
    const records = ['a', 'b', 'a', 'c', 'b'].map((groupId, i) =>
      sqsRecord({ i }, { fifo: { groupId } }),
    );

    const groups = groupRecords(records).map((group) =>
      group.map((record) => JSON.parse(record.body).i),
    );

    expect(groups).toEqual([[0, 2], [1, 4], [3]]);
  });

  it('makes every record of a standard queue its own unit', () => {
    expect(groupRecords([sqsRecord(1), sqsRecord(2), sqsRecord(3)])).toHaveLength(3);
  });

  it('does not group a standard (fair) queue by MessageGroupId: only a .fifo source orders', () => {
    const records = [1, 2].map((i) => ({
      ...sqsRecord({ i }, { fifo: { groupId: 'tenant-1' } }),
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:orders',
    }));

    expect(groupRecords(records)).toHaveLength(2);
  });
});
