import { describe, expect, it } from 'vitest';
import { DeadLetterAttribute } from '../../../src/constants/index.js';
import { keyHash } from '../../../src/core/loggedKey.js';
import { DynamoDBInboxStore, redriveUnsafeMessageIdKey } from '../../../src/index.js';
import { earliestCommitMillis } from '../../../src/operations/deadLetterFacts.js';
import { keyRecovery, keysByMessageId } from '../../../src/operations/recoverKey.js';
import { redrivenCopy } from '../../../src/operations/redrivenCopy.js';
import { sqsRecord } from '../../support/sqsRecords.js';

const text = (value: string) => ({ dataType: 'String', stringValue: value });
const store = new DynamoDBInboxStore({ tableName: 'inbox' });

function deadLetter(body: unknown, attributes: Record<string, string>, fifo = false) {
  const record = sqsRecord(body, fifo ? { fifo: { groupId: 'g-1' } } : {});
  return {
    ...record,
    messageAttributes: Object.fromEntries(Object.entries(attributes).map(([k, v]) => [k, text(v)])),
  };
}

describe('a redriven copy', () => {
  it('keeps the body and the message’s own attributes, drops the error and the original message id (the copy has its own), and says which DLQ message and run it came from', () => {
    const record = deadLetter('{"eventId":"e-1"}', {
      tenant: 't-1',
      [DeadLetterAttribute.Error]: 'TransientStoreError',
      [DeadLetterAttribute.ErrorMessage]: 'throttled',
      [DeadLetterAttribute.KeyHash]: keyHash('e-1'),
      [DeadLetterAttribute.OriginalMessageId]: 'first-id',
    });
    const copy = redrivenCopy(record, 'op-1');
    expect(copy.body).toBe(record.body);
    expect(Object.keys(copy.messageAttributes).sort()).toEqual(
      [
        'tenant',
        DeadLetterAttribute.RedriveOf,
        DeadLetterAttribute.RedriveOperation,
        DeadLetterAttribute.KeyHash,
      ].sort(),
    );
    expect(copy.messageAttributes[DeadLetterAttribute.RedriveOf]?.stringValue).toBe(
      record.messageId,
    );
    expect(copy.groupId).toBeUndefined();
  });

  it('on a FIFO queue keeps the group and derives one deduplication id per DLQ message', () => {
    const record = deadLetter('{}', {}, true);
    const first = redrivenCopy(record, 'op-1');
    expect(first.groupId).toBe('g-1');
    expect(redrivenCopy(record, 'op-2').deduplicationId).toBe(first.deduplicationId);
    expect(redrivenCopy({ ...record, messageId: 'other' }, 'op-1').deduplicationId).not.toBe(
      first.deduplicationId,
    );
  });

  it('never exceeds SQS’s ten attributes', () => {
    const own = Object.fromEntries(Array.from({ length: 9 }, (_, n) => [`a${n}`, 'v']));
    const copy = redrivenCopy(
      deadLetter('{}', { ...own, [DeadLetterAttribute.KeyHash]: 'h' }),
      'op',
    );
    expect(Object.keys(copy.messageAttributes)).toHaveLength(10);
  });
});

describe('the earliest commit of a DLQ message', () => {
  it('is the send time of a standard queue’s redrive-policy move, and otherwise as old as the source keeps messages', () => {
    const moved = deadLetter('{}', {}, true);
    const sent = Number(moved.attributes.SentTimestamp);
    expect(earliestCommitMillis(moved, { fifo: false })).toBe(sent);
    expect(earliestCommitMillis(moved, { fifo: true, sourceRetentionSeconds: 100 })).toBe(
      sent - 100_000,
    );
    // The library dead-lettered it on finding no live commit: an expired one may be older.
    const library = deadLetter('{}', { [DeadLetterAttribute.Error]: 'Error' });
    const dead = Number(library.attributes.SentTimestamp);
    expect(earliestCommitMillis(library, { fifo: false, sourceRetentionSeconds: 100 })).toBe(
      dead - 100_000,
    );
    expect(earliestCommitMillis(library, { fifo: false })).toBe(dead - 14 * 86_400_000);
  });
});

describe('key recovery', () => {
  const recover = keyRecovery({
    store,
    consumer: 'ledger',
    sources: ['sqs'],
    key: ({ body }) => (body as { eventId: string }).eventId,
  });

  it('keys a message as its consumer does, and refuses a key that does not hash to the recorded one', async () => {
    const body = { eventId: 'e-1' };
    await expect(
      recover(deadLetter(body, { [DeadLetterAttribute.KeyHash]: keyHash('e-1') })),
    ).resolves.toMatchObject({ key: 'e-1' });
    await expect(
      recover(deadLetter(body, { [DeadLetterAttribute.KeyHash]: keyHash('e-2') })),
    ).resolves.toMatchObject({ decision: 'key-mismatch' });
  });

  it('names no content when the reader refuses a message, and leaves another consumer’s alone', async () => {
    const refused = await recover(deadLetter('not json secret-42', {}));
    expect(refused).toMatchObject({ decision: 'unknown-key' });
    expect(JSON.stringify(refused)).not.toContain('secret-42');
    await expect(
      recover(deadLetter({ eventId: 'e-1' }, { [DeadLetterAttribute.Consumer]: 'billing' })),
    ).resolves.toMatchObject({ decision: 'unknown-key' });
  });

  it('does not take a FIFO DLQ copy’s deduplication id for the key of a message-id keyed consumer', async () => {
    const byId = keyRecovery({ store, consumer: 'ledger', sources: ['sqs'], keyIsMessageId: true });
    await expect(byId(deadLetter({}, {}, true))).resolves.toMatchObject({
      decision: 'unknown-key',
    });
    const standard = deadLetter({}, { [DeadLetterAttribute.OriginalMessageId]: 'orig-1' });
    await expect(byId(standard)).resolves.toMatchObject({ key: 'orig-1' });
  });

  it('knows a consumer keyed by the SQS message id by the flag or by its key function', () => {
    expect(keysByMessageId({ store, consumer: 'c', sources: ['sqs'], keyIsMessageId: true })).toBe(
      true,
    );
    const declared = { store, consumer: 'c', sources: ['sqs'] as const };
    expect(keysByMessageId({ ...declared, key: redriveUnsafeMessageIdKey })).toBe(true);
    expect(keysByMessageId({ ...declared, key: () => 'k' })).toBe(false);
  });

  it('refuses a recorded inbox.key that is not the key the consumer reads from the message', async () => {
    const body = { eventId: 'e-1' };
    await expect(
      recover(deadLetter(body, { [DeadLetterAttribute.Key]: 'e-1' })),
    ).resolves.toMatchObject({
      key: 'e-1',
    });
    const other = await recover(deadLetter(body, { [DeadLetterAttribute.Key]: 'e-2' }));
    expect(other).toMatchObject({ decision: 'key-mismatch' });
    expect(JSON.stringify(other)).not.toContain('e-2');
    // A former copy's: keyed by the message id, the copy's own id is its key, not the one it carried.
    const byId = keyRecovery({ store, consumer: 'ledger', sources: ['sqs'], keyIsMessageId: true });
    const moved = deadLetter({}, { [DeadLetterAttribute.Key]: 'first-copy-id' });
    await expect(byId(moved)).resolves.toMatchObject({ decision: 'key-mismatch' });
  });
});
