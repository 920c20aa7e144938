import { describe, expect, it } from 'vitest';
import { OutgoingMessageError, outboxMessageId, parseDestination } from '../../../src/index.js';
import { toOutgoingMessage } from '../../../src/outbox/OutgoingMessage.js';

const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/credits';
const FIFO_QUEUE = 'http://localhost:4566/000000000000/credits.fifo';
const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:credits';
const FIFO_TOPIC = 'arn:aws:sns:eu-west-1:123456789012:credits.fifo';
const BUS = 'arn:aws:events:eu-west-1:123456789012:event-bus/payments';
const ID = 'a'.repeat(64);

function refusal(input: unknown): OutgoingMessageError {
  try {
    toOutgoingMessage(input, 3, ID);
  } catch (error) {
    if (error instanceof OutgoingMessageError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('parseDestination', () => {
  it.each([
    [QUEUE, 'sqs'],
    [FIFO_QUEUE, 'sqs-fifo'],
    [TOPIC, 'sns'],
    [FIFO_TOPIC, 'sns-fifo'],
    [BUS, 'eventbridge'],
  ])('tells what %s names', (address, kind) => {
    expect(parseDestination(address)).toEqual({ kind, address });
  });

  it.each([
    'arn:aws:sqs:eu-west-1:123456789012:credits',
    'credits',
    'https://example.com/credits',
    'arn:aws:events:eu-west-1:123456789012:rule/x',
    42,
  ])('refuses %s', (address) => {
    expect(parseDestination(address)).toBeUndefined();
  });
});

describe('toOutgoingMessage', () => {
  it('sends a string body as it is and any other value as its JSON', () => {
    expect(toOutgoingMessage({ destination: QUEUE, body: 'plain' }, 0, ID).body).toBe('plain');
    expect(toOutgoingMessage({ destination: QUEUE, body: { a: [1] } }, 0, ID).body).toBe(
      '{"a":[1]}',
    );
  });

  it('keeps the group and the attributes of a FIFO queue message', () => {
    const message = toOutgoingMessage(
      { destination: FIFO_QUEUE, body: 'x', groupId: 'acc-1', attributes: { type: 'credit' } },
      0,
      ID,
    );
    expect(message).toEqual({
      id: ID,
      destination: FIFO_QUEUE,
      kind: 'sqs-fifo',
      body: 'x',
      groupId: 'acc-1',
      attributes: { type: 'credit' },
    });
  });

  it("puts the id in an event's detail, after the body's own members", () => {
    const message = toOutgoingMessage(
      {
        destination: BUS,
        body: { paymentId: 'p-1' },
        source: 'ledger',
        detailType: 'PaymentCredited',
      },
      0,
      ID,
    );
    expect(JSON.parse(message.body)).toEqual({ paymentId: 'p-1', outboxMessageId: ID });
    expect(message).toMatchObject({ source: 'ledger', detailType: 'PaymentCredited' });
  });

  it.each([
    [
      'an unknown destination',
      { destination: 'arn:aws:sqs:eu-west-1:1:q', body: 1 },
      'destination',
    ],
    ['a FIFO queue message without a group', { destination: FIFO_QUEUE, body: 1 }, 'groupId'],
    ['a FIFO topic message without a group', { destination: FIFO_TOPIC, body: 1 }, 'groupId'],
    ['a group on a standard topic', { destination: TOPIC, body: 1, groupId: 'g' }, 'groupId'],
    [
      'a group on an event bus',
      { destination: BUS, body: {}, groupId: 'g', source: 's', detailType: 'd' },
      'groupId',
    ],
    ['a group with a space', { destination: FIFO_QUEUE, body: 1, groupId: 'a b' }, 'groupId'],
    ['an event without a source', { destination: BUS, body: {}, detailType: 'd' }, 'source'],
    ['an event without a detail-type', { destination: BUS, body: {}, source: 's' }, 'detailType'],
    ['a source on a queue', { destination: QUEUE, body: 1, source: 's' }, 'source'],
    [
      'attributes on an event',
      { destination: BUS, body: {}, source: 's', detailType: 'd', attributes: { a: 'b' } },
      'attributes',
    ],
    [
      'an event whose detail is no object',
      { destination: BUS, body: 'text', source: 's', detailType: 'd' },
      'body',
    ],
    [
      'an event that sets the id member',
      { destination: BUS, body: { outboxMessageId: 'x' }, source: 's', detailType: 'd' },
      'body',
    ],
    [
      'an attribute in the outbox namespace',
      { destination: QUEUE, body: 1, attributes: { 'outbox.messageId': 'x' } },
      'attributes',
    ],
    [
      'an attribute in the AWS namespace',
      { destination: QUEUE, body: 1, attributes: { 'AWS.TraceHeader': 'x' } },
      'attributes',
    ],
    ['a number attribute', { destination: QUEUE, body: 1, attributes: { n: 1 } }, 'attributes'],
    [
      'ten attributes',
      {
        destination: QUEUE,
        body: 1,
        attributes: Object.fromEntries([...Array(10).keys()].map((i) => [`a${i}`, 'v'])),
      },
      'attributes',
    ],
    ['a body that is no JSON', { destination: QUEUE, body: 10n }, 'body'],
    ['an undefined body', { destination: QUEUE, body: undefined }, 'body'],
    ['a body over 256 KiB', { destination: QUEUE, body: 'x'.repeat(256 * 1024) }, 'body'],
    ['a name with a space', { destination: QUEUE, body: 1, name: 'a b' }, 'name'],
    ['an unknown field', { destination: QUEUE, body: 1, delaySeconds: 5 }, 'delaySeconds'],
    ['no object', 'a message', 'the message'],
  ])('refuses %s, naming the field and the position', (_, input, field) => {
    const error = refusal(input);
    expect(error.field).toBe(field);
    expect(error.index).toBe(3);
    expect(error.message).toMatch(/^Transaction|Outgoing message #3: /);
  });

  it('never quotes the body in its refusal', () => {
    const error = refusal({ destination: QUEUE, body: `secret-${'x'.repeat(300 * 1024)}` });
    expect(error.message).not.toContain('secret');
  });
});

describe('outboxMessageId', () => {
  it('depends on consumer, key and name or position only', () => {
    const first = outboxMessageId('ledger', 'pay-1', { index: 0 });
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(outboxMessageId('ledger', 'pay-1', { index: 0 })).toBe(first);
    expect(outboxMessageId('ledger', 'pay-1', { index: 1 })).not.toBe(first);
    expect(outboxMessageId('ledger', 'pay-2', { index: 0 })).not.toBe(first);
    expect(outboxMessageId('notifier', 'pay-1', { index: 0 })).not.toBe(first);
    expect(outboxMessageId('ledger', 'pay-1', { name: '0' })).not.toBe(first);
  });
});
