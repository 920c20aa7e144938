import { describe, expect, it } from 'vitest';
import { outboxMessageId } from '../../../src/constants/index.js';
import { OutgoingMessageError } from '../../../src/errors.js';
import { parseDestination } from '../../../src/index.js';
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

/**
 * The size rules as the AWS pages state them, written out here apart from the library's own
 * count: SQS `SendMessage` and SNS `Publish` count the body plus each attribute's name, data type
 * and value (the relay sends every attribute as `String`, with the outbox id's
 * `outbox.messageId`); EventBridge `PutEvents` counts Source + DetailType + Detail, + 14 for
 * Time (EventBridge stamps one).
 */
const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');
function queueOrTopicCount(body: string, attributes: Record<string, string> = {}): number {
  const sent = { ...attributes, 'outbox.messageId': ID };
  return Object.entries(sent).reduce(
    (sum, [name, value]) => sum + utf8(name) + utf8('String') + utf8(value),
    utf8(body),
  );
}
function eventEntryCount(detail: Record<string, unknown>, source: string, detailType: string) {
  return (
    utf8(source) + utf8(detailType) + utf8(JSON.stringify({ ...detail, outboxMessageId: ID })) + 14
  );
}

interface SizeCase {
  readonly label: string;
  readonly maxBytes: number;
  /** The message whose free text is `filler`, and its size as its destination counts it. */
  readonly build: (filler: string) => { input: Record<string, unknown>; awsBytes: number };
}

const SIZE_CASES: readonly SizeCase[] = [
  ...(
    [
      ['an SQS queue', QUEUE, undefined],
      ['an SQS FIFO queue', FIFO_QUEUE, 'acc-1'],
      ['an SNS topic', TOPIC, undefined],
      ['an SNS FIFO topic', FIFO_TOPIC, 'acc-1'],
    ] as const
  ).map(
    ([label, destination, groupId]): SizeCase => ({
      label: `${label} counts the body and each attribute's name, data type and value, the outbox id's included`,
      maxBytes: 262_144,
      build: (filler) => {
        const attributes = { type: 'crédit', 'trace-id': 'ж-1' };
        const body = `{"note":"${filler}"}`;
        return {
          input: { destination, body, attributes, ...(groupId ? { groupId } : {}) },
          awsBytes: queueOrTopicCount(body, attributes),
        };
      },
    }),
  ),
  {
    label:
      'an event bus counts source, detailType, the detail with the outbox id, and 14 for the time',
    maxBytes: 262_143,
    build: (filler) => {
      const detail = { note: filler, amount: '€12' };
      const [source, detailType] = ['lédger', 'PaymentCrédited'];
      return {
        input: { destination: BUS, body: detail, source, detailType },
        awsBytes: eventEntryCount(detail, source, detailType),
      };
    },
  },
];

/** A filler that brings `build`'s message to `targetBytes`, ending in `last` (1 to 4 bytes). */
function fillTo(build: SizeCase['build'], targetBytes: number, last: string) {
  const base = build('').awsBytes;
  const filler = 'x'.repeat(targetBytes - base - utf8(last)) + last;
  const built = build(filler);
  expect(built.awsBytes).toBe(targetBytes);
  return built.input;
}

describe('refuses whatever the destination would refuse, counted as it counts', () => {
  describe.each(SIZE_CASES)('$label', ({ build, maxBytes }) => {
    it.each([
      ['ASCII', 'x'],
      ['a two-byte character', 'é'],
      ['a three-byte character', '€'],
      ['a four-byte character', '𝄞'],
    ])('accepts a message of exactly the limit, ending in %s', (_, last) => {
      const input = fillTo(build, maxBytes, last);
      expect(() => toOutgoingMessage(input, 3, ID)).not.toThrow();
    });

    it.each([
      ['ASCII', 'x'],
      ['a multi-byte character (one character, as many as at the limit, one byte more)', '€'],
    ])('refuses a message one byte over, ending in %s, with the overshoot', (_, last) => {
      const input = fillTo(build, maxBytes + 1, last);
      const error = refusal(input);
      expect(error).toMatchObject({ field: 'body', index: 3 });
      expect(error.message).toContain(`takes ${maxBytes + 1} bytes`);
      expect(error.message).toContain(`1 over the ${maxBytes}`);
      expect(error.message).toContain('S3');
    });
  });

  it("refuses the issue's SNS publish of 262,204 bytes counted with its attributes, which a body-only count let pass", () => {
    const attributes = Object.fromEntries(
      [...Array(9).keys()].map((i) => [`attribute-${i}`, 'v'.repeat(10)]),
    );
    const body = 'x'.repeat(262_204 - queueOrTopicCount('', attributes));
    expect(queueOrTopicCount(body, attributes)).toBe(262_204);
    expect(refusal({ destination: TOPIC, body, attributes }).message).toContain(
      '60 over the 262144',
    );
  });

  it("refuses the issue's event of 262,400 bytes as EventBridge counts it", () => {
    const [source, detailType] = ['s'.repeat(256), 'd'.repeat(256)];
    const detail = { note: '' };
    const note = 'x'.repeat(262_400 - eventEntryCount(detail, source, detailType));
    expect(eventEntryCount({ note }, source, detailType)).toBe(262_400);
    const error = refusal({ destination: BUS, body: { note }, source, detailType });
    expect(error).toMatchObject({ field: 'body' });
    expect(error.message).toContain('257 over the 262143');
  });

  it('names the attributes when they, not the body, make the message too large', () => {
    const attributes = { big: 'v'.repeat(200_000) };
    const error = refusal({ destination: QUEUE, body: 'x'.repeat(70_000), attributes });
    expect(error.field).toBe('attributes');
    expect(error.message).toMatch(/attributes 200\d{3}, the outbox id's attribute 86/);
  });
});
