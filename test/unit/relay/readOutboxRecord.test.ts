import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { outboxMessageId } from '../../../src/constants/index.js';
import { FormatVersionError, OutboxRecordError } from '../../../src/errors.js';
import { readOutboxRecord } from '../../../src/relay/readOutboxRecord.js';

const QUEUE = 'http://localhost:4566/000000000000/credits';
const message = {
  id: outboxMessageId('ledger', 'k', { index: 0 }),
  destination: QUEUE,
  kind: 'sqs',
  body: 'b',
};

/** An INSERT of an outbox item with these attributes besides its key. */
function inserted(item: Record<string, unknown>): DynamoDBRecord {
  return {
    eventName: 'INSERT',
    dynamodb: {
      Keys: marshall({ pk: 'msg#1' }) as never,
      NewImage: marshall({ pk: 'msg#1', ...item }) as never,
      SequenceNumber: '000000000000000000001',
    },
  };
}

describe('readOutboxRecord: format versions', () => {
  it('reads an item of the previous format, stored without formatVersion, as version 1', () => {
    expect(readOutboxRecord(inserted({ messages: [message] }))).toEqual({
      kind: 'messages',
      sequenceNumber: '000000000000000000001',
      pk: 'msg#1',
      messages: [message],
    });
  });

  it('reads an item of the format version this release writes', () => {
    const read = readOutboxRecord(inserted({ formatVersion: 1, messages: [message] }));
    expect(read).toMatchObject({ kind: 'messages', messages: [message] });
  });

  it('dead-letters an item of a newer format version with FormatVersionError and its image, reading none of it', () => {
    // Its messages are of a shape version 1 does not know: they are not looked at.
    const newer = inserted({ formatVersion: 2, messages: [{ ref: 's3://b/k' }] });
    const read = readOutboxRecord(newer);

    expect(read).toMatchObject({
      kind: 'unreadable',
      retry: false,
      image: newer.dynamodb?.NewImage,
    });
    const { error } = read as { error: FormatVersionError };
    expect(error).toBeInstanceOf(FormatVersionError);
    expect(error).toMatchObject({ stored: 'outboxItem', version: 2, newest: 1 });
    expect(error.message).toMatch(
      /The outbox item msg#1 \(stream record 0+1\) has format version 2/,
    );
    expect(error.message).toMatch(/Upgrade the relay's sqs-inbox.*redriveOutbox/);
  });

  it.each([['1'], [0], [1.5]])(
    'dead-letters an item whose formatVersion is %j as no outbox item',
    (version) => {
      const read = readOutboxRecord(inserted({ formatVersion: version, messages: [message] }));

      expect(read).toMatchObject({ kind: 'unreadable', retry: false });
      expect((read as { error: unknown }).error).toBeInstanceOf(OutboxRecordError);
      expect((read as { error: Error }).error.message).toMatch(/formatVersion is no whole number/);
    },
  );
});
