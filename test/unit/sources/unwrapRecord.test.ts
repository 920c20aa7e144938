import { describe, expect, it } from 'vitest';
import { EnvelopeMismatchError, FormatVersionError } from '../../../src/errors.js';
import { MessageSource, PermanentError } from '../../../src/index.js';
import type { UnwrappedRecord } from '../../../src/sources/MessageSource.js';
import { unwrapRecord } from '../../../src/sources/unwrapRecord.js';
import {
  eventBridgeEvent,
  s3Notification,
  s3TestEvent,
  snsNotification,
} from '../../support/envelopes.js';
import { pipedRecord, storedItem, withoutNewImage } from '../../support/pipedRecords.js';
import { sqsRecord } from '../../support/sqsRecords.js';

const { Sqs, Sns, SnsRaw, EventBridge, S3 } = MessageSource;

function mismatch(body: unknown, sources: MessageSource[]): EnvelopeMismatchError {
  try {
    unwrapRecord(sqsRecord(body), sources);
  } catch (error) {
    expect(error).toBeInstanceOf(EnvelopeMismatchError);
    expect(error).toBeInstanceOf(PermanentError);
    return error as EnvelopeMismatchError;
  }
  throw new Error('no mismatch');
}

/** An SQS record as an outbox relay sends it: the outbox id as a message attribute. */
function relayed(body: string, id = 'f'.repeat(64)) {
  const record = sqsRecord(body);
  return {
    ...record,
    messageAttributes: {
      'outbox.messageId': {
        stringValue: id,
        dataType: 'String',
        stringListValues: [],
        binaryListValues: [],
      },
    },
  };
}

describe('unwrapRecord: messages an outbox relayed', () => {
  const id = 'a'.repeat(64);

  it('keys a raw relayed message by its outbox id and gives the body as is', () => {
    expect(unwrapRecord(relayed('{"a":1}', id), [MessageSource.Outbox])).toEqual({
      envelope: { kind: MessageSource.Outbox, messageId: id },
      payload: { text: '{"a":1}' },
      upstreamKey: `outbox:${id}`,
    });
  });

  it('keys a relayed SNS notification by the outbox id, not the MessageId of this send', () => {
    const notification = snsNotification('credited', {
      MessageId: 'sns-send-2',
      MessageAttributes: { 'outbox.messageId': { Type: 'String', Value: id } },
    });
    expect(unwrapRecord(sqsRecord(notification), [Sns])).toMatchObject({
      upstreamKey: `outbox:${id}`,
    });
  });

  it('keys a relayed event by the outbox id in its detail, and gives the detail as published', () => {
    const event = eventBridgeEvent(
      { paymentId: 'p-1', outboxMessageId: id },
      { id: 'event-of-send-2' },
    );
    expect(unwrapRecord(sqsRecord(event), [EventBridge])).toMatchObject({
      payload: { value: { paymentId: 'p-1' } },
      upstreamKey: `outbox:${id}`,
    });
  });

  it('gives the same key to one message whichever way the relay sent it', () => {
    const raw = unwrapRecord(relayed('x', id), [MessageSource.Outbox]);
    const viaTopic = unwrapRecord(
      sqsRecord(
        snsNotification('x', {
          MessageAttributes: { 'outbox.messageId': { Type: 'String', Value: id } },
        }),
      ),
      [Sns],
    );
    expect('upstreamKey' in raw && raw.upstreamKey).toBe(
      'upstreamKey' in viaTopic && viaTopic.upstreamKey,
    );
  });

  it('still keys the body OutboxPipe sent before stream records ({ outboxMessageId, body }) by its id, for one release', () => {
    const piped = JSON.stringify({ outboxMessageId: id, body: '{"paymentId":"p-1"}' });
    expect(unwrapRecord(sqsRecord(piped), [MessageSource.Outbox])).toEqual({
      envelope: { kind: MessageSource.Outbox, messageId: id },
      payload: { text: '{"paymentId":"p-1"}' },
      upstreamKey: `outbox:${id}`,
    });
  });

  it.each([
    [{ outboxMessageId: 'a'.repeat(64), body: '{}', extra: 1 }],
    [{ outboxMessageId: 'a'.repeat(64), body: { paymentId: 'p-1' } }],
    [{ outboxMessageId: '', body: '{}' }],
    [{ outboxMessageId: 'a'.repeat(513), body: '{}' }],
  ])('does not take %j for a piped message', (body) => {
    expect(mismatch(JSON.stringify(body), [MessageSource.Outbox])).toBeInstanceOf(
      EnvelopeMismatchError,
    );
    expect(
      unwrapRecord(sqsRecord(JSON.stringify(body)), [Sqs, MessageSource.Outbox]),
    ).toMatchObject({ envelope: { kind: Sqs } });
  });

  it('refuses a message without the outbox id on a consumer that declares only the outbox', () => {
    expect(mismatch('{"a":1}', [MessageSource.Outbox]).message).toMatch(
      /no outbox\.messageId attribute \(nor is it an outbox item's stream record, as OutboxPipe sends\)/,
    );
  });

  it('reads a message without the id as the direct producers’ when both are declared', () => {
    expect(unwrapRecord(sqsRecord('{"a":1}'), [Sqs, MessageSource.Outbox])).toMatchObject({
      envelope: { kind: Sqs },
    });
  });
});

describe('unwrapRecord: the stream records an EventBridge pipe sends (OutboxPipe)', () => {
  const id = 'c'.repeat(64);
  const body = '{"note":"say \\"hi\\"\n","path":"C:\\\\x"} é 🎉';

  it("keys an outbox item's stream record by its message's outbox id, and gives the message's body text as the payload", () => {
    const read = unwrapRecord(sqsRecord(pipedRecord(storedItem(body, id))), [MessageSource.Outbox]);

    expect(read).toEqual({
      envelope: { kind: MessageSource.Outbox, messageId: id },
      payload: { text: body },
      upstreamKey: `outbox:${id}`,
    });
    expect(read).toMatchObject({
      upstreamKey: (unwrapRecord(relayed(body, id), [MessageSource.Outbox]) as UnwrappedRecord)
        .upstreamKey,
    });
  });

  it.each([
    ['a record without a new image (a removal)', withoutNewImage(storedItem(body, id))],
    ['an item without messages', pipedRecord({ pk: 'msg#1', expiresAt: 1 })],
    ['a message whose id is no outbox id', pipedRecord(storedItem(body, 'x'.repeat(513)))],
    ['a message whose body is no text', pipedRecord(storedItem(body, id), { bodyType: 'N' })],
  ])(
    'refuses %s, naming what the record lacks, unless direct producers are declared too',
    (_, record) => {
      expect(mismatch(record, [MessageSource.Outbox]).found).toBe(
        'a DynamoDB stream record whose NewImage holds no outbox message (messages.L[0].M with an id and a body, as text)',
      );
      expect(unwrapRecord(sqsRecord(record), [Sqs, MessageSource.Outbox])).toMatchObject({
        envelope: { kind: Sqs },
        payload: { text: record },
      });
    },
  );

  it.each([
    ['two messages', { messages: 2 }, '2 messages'],
    ['message attributes', { attributes: true }, 'message attributes'],
  ])(
    'refuses an item a pipe cannot relay whole (%s), which only a store without the pipe writes, naming the fix',
    (_, shape, named) => {
      const error = mismatch(pipedRecord(storedItem(body, id, shape)), [MessageSource.Outbox]);

      expect(error.found).toBe(
        `a DynamoDB stream record of an outbox item a pipe cannot relay whole (${named})`,
      );
      expect(error.message).toContain('OutboxPipe.publisherEnvironment()');
    },
  );

  it('reads the stream record of an item of the previous format, stored without formatVersion, as version 1', () => {
    const { formatVersion, ...previous } = storedItem(body, id);

    expect(formatVersion).toBe(1);
    expect(unwrapRecord(sqsRecord(pipedRecord(previous)), [MessageSource.Outbox])).toEqual({
      envelope: { kind: MessageSource.Outbox, messageId: id },
      payload: { text: body },
      upstreamKey: `outbox:${id}`,
    });
  });

  it('refuses the stream record of an item of a newer format version with FormatVersionError, which is retried, not dead-lettered at once', () => {
    const newer = { ...storedItem(body, id), formatVersion: 2 };
    let error: unknown;
    try {
      unwrapRecord(sqsRecord(pipedRecord(newer)), [MessageSource.Outbox]);
    } catch (caught) {
      error = caught;
    }

    expect(error).toBeInstanceOf(FormatVersionError);
    expect(error).not.toBeInstanceOf(PermanentError);
    expect(error).toMatchObject({ stored: 'outboxItem', version: 2, newest: 1 });
    expect((error as Error).message).toMatch(
      /format version 2.*Upgrade sqs-inbox in this consumer/,
    );
  });

  it('names a stream record on a consumer that does not declare the outbox', () => {
    expect(mismatch(pipedRecord(storedItem(body, id)), [Sns]).found).toBe(
      'a DynamoDB stream record',
    );
  });
});

describe('unwrapRecord', () => {
  it('gives the SNS Message as payload text, the notification as envelope, and the SNS MessageId as key', () => {
    const notification = snsNotification('{"paymentId":"p-1"}', {
      MessageId: 'sns-1',
      Subject: 'captured',
      MessageAttributes: { eventId: { Type: 'String', Value: 'e-1' } },
    });

    const read = unwrapRecord(sqsRecord(notification), [Sns]);

    expect(read).toEqual({
      envelope: {
        kind: Sns,
        messageId: 'sns-1',
        topicArn: 'arn:aws:sns:us-east-1:000000000000:payments',
        timestamp: '2026-11-23T10:00:00.000Z',
        subject: 'captured',
        sequenceNumber: undefined,
        messageAttributes: { eventId: { type: 'String', value: 'e-1' } },
      },
      payload: { text: '{"paymentId":"p-1"}' },
      upstreamKey: 'sns:sns-1',
    });
  });

  it('gives the EventBridge detail as payload value and the event id as key', () => {
    const event = eventBridgeEvent({ orderId: 'o-1' }, { id: 'ev-1', resources: ['arn:x'] });

    const read = unwrapRecord(sqsRecord(event), [EventBridge]);

    expect(read).toMatchObject({
      envelope: {
        kind: EventBridge,
        id: 'ev-1',
        source: 'shop.orders',
        detailType: 'OrderPlaced',
        time: '2026-11-23T10:00:00Z',
        resources: ['arn:x'],
      },
      payload: { value: { orderId: 'o-1' } },
      upstreamKey: 'eventbridge:ev-1',
    });
  });

  it('gives S3 records as payload, object keys decoded in the envelope, and event, bucket, key and sequencer as key', () => {
    const notification = s3Notification({ key: 'in/a+b%2Bc.csv', sequencer: '0A1B' });

    const read = unwrapRecord(sqsRecord(notification), [S3]);

    expect(read).toMatchObject({
      envelope: {
        kind: S3,
        objects: [{ bucket: 'uploads', key: 'in/a b+c.csv', sequencer: '0A1B' }],
      },
      upstreamKey: 's3:ObjectCreated:Put:uploads/in/a+b%2Bc.csv@0A1B',
    });
    expect(read).toMatchObject({ payload: { value: notification.Records } });
  });

  it('keys an S3 event without a sequencer by the hash of its record, the same on every delivery', () => {
    const notification = s3Notification({ key: 'a.csv', eventName: 'ObjectTagging:Put' });

    const first = unwrapRecord(sqsRecord(notification), [S3]);
    const again = unwrapRecord(sqsRecord(notification), [S3]);

    expect('upstreamKey' in first && first.upstreamKey).toMatch(
      /^s3:ObjectTagging:Put:uploads\/a\.csv#[0-9a-f]{64}$/,
    );
    expect(again).toEqual(first);
  });

  it('hashes an S3 key that would exceed 1,024 bytes, so a long object key still has one', () => {
    const read = unwrapRecord(
      sqsRecord(s3Notification({ key: 'k'.repeat(1024), sequencer: '01' })),
      [S3],
    );

    expect('upstreamKey' in read && read.upstreamKey).toMatch(/^s3:sha256:[0-9a-f]{64}$/);
  });

  it("returns S3's test event as a notice, not an event", () => {
    expect(unwrapRecord(sqsRecord(s3TestEvent()), [S3])).toMatchObject({ notice: 's3:TestEvent' });
  });

  it('reads the body as is for direct producers, even when it looks like an envelope', () => {
    const body = JSON.stringify(snsNotification('{}'));

    expect(unwrapRecord(sqsRecord(body), [Sqs])).toEqual({
      envelope: { kind: Sqs },
      payload: { text: body },
    });
  });

  it('reads a raw SNS body as is, JSON or not', () => {
    expect(unwrapRecord(sqsRecord('plain text'), [SnsRaw])).toEqual({
      envelope: { kind: SnsRaw },
      payload: { text: 'plain text' },
    });
  });

  it('picks the declared envelope a body has when several sources are declared', () => {
    const sources = [Sns, EventBridge, Sqs];

    expect(unwrapRecord(sqsRecord(snsNotification('x')), sources)).toMatchObject({
      envelope: { kind: Sns },
    });
    expect(unwrapRecord(sqsRecord(eventBridgeEvent({})), sources)).toMatchObject({
      envelope: { kind: EventBridge },
    });
    expect(unwrapRecord(sqsRecord({ orderId: 'o' }), sources)).toMatchObject({
      envelope: { kind: Sqs },
    });
  });

  it('reads a payload that only looks like an envelope as the plain source’s, when one is declared', () => {
    const payload = { source: 'checkout', 'detail-type': 'cart', detail: { items: 2 } };

    expect(unwrapRecord(sqsRecord(payload), [EventBridge, Sqs])).toMatchObject({
      envelope: { kind: Sqs },
      payload: { text: JSON.stringify(payload) },
    });
    expect(() => unwrapRecord(sqsRecord(payload), [EventBridge])).toThrow(EnvelopeMismatchError);
  });

  it.each([
    {
      case: 'a direct message to an SNS consumer',
      body: { paymentId: 'p' },
      sources: [Sns],
      found: /a JSON object of no declared envelope/,
    },
    {
      case: 'text to an EventBridge consumer',
      body: 'hello',
      sources: [EventBridge],
      found: /is not JSON/,
    },
    {
      case: 'an SNS notification to an EventBridge consumer',
      body: snsNotification('{}'),
      sources: [EventBridge],
      found: /is an SNS notification/,
    },
    {
      case: 'an EventBridge event to an S3 consumer',
      body: eventBridgeEvent({}),
      sources: [S3],
      found: /is an EventBridge event/,
    },
    {
      case: 'an SNS notification to a raw-delivery consumer',
      body: snsNotification('{}'),
      sources: [SnsRaw],
      found: /Turn raw message delivery on/,
    },
    {
      case: 'an EventBridge event cut by an input transformer',
      body: { source: 's', 'detail-type': 't', detail: {} },
      sources: [EventBridge],
      found: /without version, id, account, time, region, resources/,
    },
    {
      case: 'an SNS subscription confirmation',
      body: snsNotification('{}', { Type: 'SubscriptionConfirmation' }),
      sources: [Sns],
      found: /an SNS SubscriptionConfirmation.*ConfirmSubscription/,
    },
    {
      case: 'an SNS notification without a Message',
      body: snsNotification('{}', { Message: 42 }),
      sources: [Sns],
      found: /without a Message string/,
    },
  ])('refuses $case with a reason naming what it found', ({ body, sources, found }) => {
    const error = mismatch(body, sources);

    expect(error.message).toMatch(found);
    expect(error.declared).toEqual(sources);
  });

  it('never quotes the body in the reason', () => {
    const error = mismatch({ secret: 'card 4111 1111 1111 1111' }, [EventBridge]);

    expect(error.message).not.toMatch(/4111|secret/);
  });
});
