import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { outboxWrites } from '../../../src/aws/outboxWrites.js';
import { OUTBOX_LIMITS } from '../../../src/constants/index.js';
import { OutgoingMessageError } from '../../../src/errors.js';
import { checkPipeOutbox } from '../../../src/outbox/checkPipeOutbox.js';
import type { OutgoingMessage } from '../../../src/outbox/OutgoingMessage.js';
import { outboxItem, outboxItemCommon } from '../../../src/outbox/outboxItem.js';
import { pipedRecordBytes } from '../../../src/outbox/pipedRecordBytes.js';
import { itemPlanOf } from '../../../src/outbox/planOutboxItems.js';

const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/credits.fifo';
const TABLE = 'ledger-outbox';
const PIPE = { destination: QUEUE, tableName: TABLE };
const NOW_MILLIS = Date.UTC(2026, 10, 26, 12, 0, 0);
const COMMON = outboxItemCommon(
  { consumer: 'ledger', keyHash: 'a'.repeat(16) },
  NOW_MILLIS,
  604_800,
);
const ID = 'b'.repeat(64);
const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');
const message = (body: string, groupId: string | undefined = 'acc-1'): OutgoingMessage => ({
  id: ID,
  destination: QUEUE,
  kind: groupId === undefined ? 'sqs' : 'sqs-fifo',
  body,
  ...(groupId === undefined ? {} : { groupId }),
});
const itemOf = (outgoing: OutgoingMessage) => outboxItem(itemPlanOf(outgoing), COMMON);
const totalBytes = (body: string) => pipedRecordBytes(itemOf(message(body)), TABLE).totalBytes;

const BODIES = [
  ['plain text', 'credited'],
  ['JSON with quotes and a newline', '{"note":"say \\"hi\\"\n"}'],
  ['a control character and a backslash', 'a\u0001b\\c'],
  ['multi-byte characters and an emoji', 'crédit € 𝄞 🎉'],
];

describe('pipedRecordBytes', () => {
  it.each(BODIES)(
    'counts the item, as the store writes it, in DynamoDB JSON as the document client marshals it: %s',
    (_, body) => {
      for (const outgoing of [message(body), message(body, undefined)]) {
        const [write] = outboxWrites(
          { tableName: TABLE, retentionSeconds: 604_800, pipeDestination: QUEUE },
          [outgoing],
          { consumer: 'ledger', key: 'evt-1' },
          NOW_MILLIS,
        );
        const item = itemOf(outgoing);
        if (write?.Put !== undefined) expect(write.Put.Item).toEqual(item);
        else expect(write?.Update?.Key).toEqual({ pk: item.pk });
        const keys = { pk: item.pk };
        expect(pipedRecordBytes(item, TABLE).imageBytes).toBe(
          utf8(JSON.stringify(marshall(item))) + utf8(JSON.stringify(marshall(keys))),
        );
      }
    },
  );

  it("bounds the record's other fields by 1,024 bytes and the table's name, which its stream ARN holds", () => {
    const bytes = pipedRecordBytes(itemOf(message('x')), TABLE);

    expect(bytes.envelopeBytes).toBe(1024 + TABLE.length);
    expect(bytes.totalBytes).toBe(bytes.imageBytes + bytes.envelopeBytes);
  });
});

describe("refuses whatever the pipe's queue would refuse: the item's stream record, counted as the pipe sends it, against 262,144 bytes", () => {
  /** A body whose piped record takes `targetBytes`, its filler repeated, ending in `last`. */
  function bodyPipedTo(targetBytes: number, filler: string, last: string): string {
    const base = totalBytes(last);
    const unit = totalBytes(filler + last) - base;
    const count = Math.floor((targetBytes - base) / unit);
    const pad = 'x'.repeat(targetBytes - base - count * unit);
    const body = filler.repeat(count) + pad + last;
    expect(totalBytes(body)).toBe(targetBytes);
    return body;
  }

  it.each([
    ['ASCII', 'x', 'x'],
    ['quotes, escaped to two bytes each', '"', 'x'],
    ['control characters, escaped to six bytes each', '\u0001', 'é'],
    ['multi-byte characters', '€', '𝄞'],
    ['emoji', '🎉', 'x'],
  ])('accepts a message whose piped record is exactly the limit: %s', (_, filler, last) => {
    const body = bodyPipedTo(OUTBOX_LIMITS.maxBytesByKind['sqs-fifo'], filler, last);
    expect(() => checkPipeOutbox([message(body)], PIPE, COMMON)).not.toThrow();
  });

  it.each([
    ['ASCII', 'x', 'x'],
    ['quotes, escaped to two bytes each', '"', 'x'],
    ['multi-byte characters', '€', '€'],
    ['emoji', '🎉', 'x'],
  ])('refuses one byte over, naming the body and the overshoot: %s', (_, filler, last) => {
    const body = bodyPipedTo(262_145, filler, last);
    let error: unknown;
    try {
      checkPipeOutbox([message(body)], PIPE, COMMON);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(OutgoingMessageError);
    expect(error).toMatchObject({ field: 'body', index: 0 });
    expect((error as Error).message).toContain('counted as 262145 bytes');
    expect((error as Error).message).toContain(`at most ${1024 + TABLE.length} for the record`);
    expect((error as Error).message).toContain('1 over the 262144');
  });
});
