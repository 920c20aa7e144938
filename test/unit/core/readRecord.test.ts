import { describe, expect, it } from 'vitest';
import { DeadLetterPublisher } from '../../../src/aws/DeadLetterPublisher.js';
import { readRecord } from '../../../src/core/readMessage.js';
import { resolveOptions } from '../../../src/core/resolveOptions.js';
import { DynamoDBInboxStore, type ParsedMessage } from '../../../src/index.js';
import { keyFromDeclaration } from '../../../src/sources/declaredKey.js';
import { recordingLogger, sqsRecord } from '../../support/sqsRecords.js';

const store = new DynamoDBInboxStore({ tableName: 'inbox', clientConfig: { region: 'us-east-1' } });

/** A record with three string attributes. */
const record = {
  ...sqsRecord({ orderId: 'o-1' }),
  messageAttributes: Object.fromEntries(
    ['eventId', 'tenant', 'trace'].map((name) => [
      name,
      { dataType: 'String', stringValue: `${name}-1`, stringListValues: [], binaryListValues: [] },
    ]),
  ),
};

async function keyAttributesOf(key: (message: ParsedMessage<unknown>) => string) {
  const options = resolveOptions(
    { store, consumer: 'unit', key, observability: { logger: recordingLogger() } },
    (url, client) => new DeadLetterPublisher(url, client),
  );
  const read = await readRecord(record, options);
  if (!('read' in read) || !('key' in read.read)) throw new Error('the record did not read');
  return { key: read.read.key, attributes: read.identity?.keyAttributes?.() };
}

describe('the attributes a key was read from, which a dead-letter copy keeps first', () => {
  it('are the one a declared attribute key reads', async () => {
    const read = await keyAttributesOf(keyFromDeclaration({ from: 'attribute', name: 'eventId' }));
    expect(read).toEqual({ key: 'eventId-1', attributes: ['eventId'] });
  });

  it('are none for a key from the body', async () => {
    const read = await keyAttributesOf(({ body }) => (body as { orderId: string }).orderId);
    expect(read).toEqual({ key: 'o-1', attributes: [] });
  });

  it('are every one for a key that copies them, and copying works as on the record itself (structuredClone, spread, JSON)', async () => {
    const read = await keyAttributesOf(({ messageAttributes }) => {
      const cloned = structuredClone(messageAttributes);
      const spread = { ...messageAttributes };
      return `${Object.keys(cloned).length}:${Object.keys(spread).length}:${JSON.stringify(messageAttributes).length > 0}`;
    });
    expect(read.key).toBe('3:3:true');
    expect([...(read.attributes ?? [])].sort()).toEqual(['eventId', 'tenant', 'trace']);
  });

  it('are every one for a key that only tests an attribute for presence, which no getter sees', async () => {
    const tested = (exists: (attributes: object, name: string) => boolean) =>
      keyAttributesOf(({ body, messageAttributes }) =>
        exists(messageAttributes, 'trace') ? 'traced' : (body as { orderId: string }).orderId,
      );
    for (const exists of [
      (attributes: object, name: string) => name in attributes,
      (attributes: object, name: string) => Object.hasOwn(attributes, name),
    ]) {
      const read = await tested(exists);
      expect(read.key).toBe('traced');
      expect([...(read.attributes ?? [])].sort()).toEqual(['eventId', 'tenant', 'trace']);
    }
  });

  it('see the reads through the record too', async () => {
    const read = await keyAttributesOf(
      ({ record: own }) => own.messageAttributes.tenant?.stringValue ?? '',
    );
    expect(read).toEqual({ key: 'tenant-1', attributes: ['tenant'] });
  });
});
