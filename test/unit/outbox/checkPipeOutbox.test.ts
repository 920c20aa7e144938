import { describe, expect, it } from 'vitest';
import { OUTBOX_PIPE_INPUT_TEMPLATE } from '../../../src/cdk/OutboxPipe.js';
import { OutgoingMessageError } from '../../../src/index.js';
import { checkPipeOutbox, pipedBody } from '../../../src/outbox/checkPipeOutbox.js';
import type { OutgoingMessage } from '../../../src/outbox/OutgoingMessage.js';

const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/credits.fifo';
const ID = 'b'.repeat(64);
const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');
const message = (body: string): OutgoingMessage => ({
  id: ID,
  destination: QUEUE,
  kind: 'sqs-fifo',
  body,
  groupId: 'acc-1',
});

/** `OutboxPipe`'s template rendered as Pipes does: each path between quotes, JSON-escaped. */
function rendered({ id, body }: OutgoingMessage): string {
  const values: Record<string, string> = { id, body };
  return OUTBOX_PIPE_INPUT_TEMPLATE.replace(/<\$\.[^>]*\.(id|body)\.S>/g, (_, field: string) =>
    JSON.stringify(values[field]).slice(1, -1),
  );
}

const BODIES = [
  ['plain text', 'credited'],
  ['JSON with quotes and a newline', '{"note":"say \\"hi\\"\n"}'],
  ['a control character and a backslash', 'a\u0001b\\c'],
  ['multi-byte characters', 'crédit € 𝄞'],
];

describe('pipedBody', () => {
  it.each(BODIES)("is, byte for byte, what OutboxPipe's input template sends for %s", (_, body) => {
    expect(pipedBody(message(body))).toBe(rendered(message(body)));
  });
});

describe("refuses whatever the pipe's queue would refuse: the piped body, as the pipe sends it, against 262,144 bytes", () => {
  /** A body whose piped form takes `targetBytes`, its filler repeated, ending in `last`. */
  function bodyPipedTo(targetBytes: number, filler: string, last: string): string {
    const base = utf8(pipedBody(message(last)));
    const unit = utf8(pipedBody(message(filler + last))) - base;
    const count = Math.floor((targetBytes - base) / unit);
    const pad = 'x'.repeat(targetBytes - base - count * unit);
    const body = filler.repeat(count) + pad + last;
    expect(utf8(pipedBody(message(body)))).toBe(targetBytes);
    return body;
  }

  it.each([
    ['ASCII', 'x', 'x'],
    ['quotes, escaped to two bytes each', '"', 'x'],
    ['control characters, escaped to six bytes each', '\u0001', 'é'],
    ['multi-byte characters', '€', '𝄞'],
  ])('accepts a message whose piped body is exactly the limit: %s', (_, filler, last) => {
    const body = bodyPipedTo(262_144, filler, last);
    expect(() => checkPipeOutbox([message(body)], QUEUE)).not.toThrow();
  });

  it.each([
    ['ASCII', 'x', 'x'],
    ['quotes, escaped to two bytes each', '"', 'x'],
    ['multi-byte characters', '€', '€'],
  ])('refuses one byte over, naming the body and the overshoot: %s', (_, filler, last) => {
    const body = bodyPipedTo(262_145, filler, last);
    let error: unknown;
    try {
      checkPipeOutbox([message(body)], QUEUE);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(OutgoingMessageError);
    expect(error).toMatchObject({ field: 'body', index: 0 });
    expect((error as Error).message).toContain('sends 262145 bytes');
    expect((error as Error).message).toContain('1 over the 262144');
  });
});
