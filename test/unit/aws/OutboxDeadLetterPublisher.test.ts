import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { OutboxDeadLetterPublisher } from '../../../src/aws/OutboxDeadLetterPublisher.js';
import { DeadLetterSendError } from '../../../src/errors.js';
import {
  OUTBOX_DEAD_LETTER_KIND,
  type OutboxDeadLetter,
} from '../../../src/outbox/OutboxDeadLetter.js';
import { answering, CONFIG, sqsError, sqsSent, type WireAnswer } from '../../support/awsWire.js';

const DLQ = 'https://sqs.eu-west-1.amazonaws.com/123456789012/relay-dlq';
const LETTER: OutboxDeadLetter = {
  kind: OUTBOX_DEAD_LETTER_KIND,
  reason: { error: 'DestinationRefusedError', code: 'NotFound', message: 'refused' },
  message: {
    id: 'd'.repeat(64),
    destination: 'arn:aws:sns:eu-west-1:123456789012:credits.fifo',
    kind: 'sns-fifo',
    body: '{"note":"say \\"hi\\""}'.repeat(100),
    groupId: 'acc-1',
    attributes: { type: 'credit' },
  },
  record: { sequenceNumber: '100', pk: 'grp#abc' },
  failedAt: '2026-11-24T12:00:00.000Z',
};
// What SQS answers a message over the queue's MaximumMessageSize (an undocumented 4xx).
const TOO_LONG = sqsError('InvalidParameterValue', 'InvalidParameterValue', 400);

function publisher(answers: ReadonlyArray<WireAnswer | ((body: string) => WireAnswer)>) {
  const sent: string[] = [];
  const client = new SQSClient({ ...CONFIG, requestHandler: answering(answers, sent) });
  const letters = () => sent.map((request) => JSON.parse(JSON.parse(request).MessageBody));
  return { sink: new OutboxDeadLetterPublisher(DLQ, () => client), sent, letters };
}

describe('OutboxDeadLetterPublisher', () => {
  it('sends the letter in full when the queue takes it', async () => {
    const { sink, letters } = publisher([sqsSent]);
    await sink.send(LETTER);
    expect(letters()).toEqual([LETTER]);
  });

  it("sends a letter the queue refuses again without the message's body and attributes, saying what it left out (injected)", async () => {
    const { sink, sent, letters } = publisher([TOO_LONG, sqsSent]);
    await sink.send(LETTER);

    const [, smaller] = letters();
    const { body: _body, attributes: _attributes, ...envelope } = LETTER.message ?? {};
    expect(smaller).toEqual({
      kind: OUTBOX_DEAD_LETTER_KIND,
      reason: LETTER.reason,
      messageEnvelope: envelope,
      omitted: {
        fields: ['message.body', 'message.attributes'],
        letterBytes: expect.any(Number),
      },
      record: LETTER.record,
      failedAt: LETTER.failedAt,
    });
    const full = JSON.parse(sent[0] ?? '{}') as { MessageBody: string };
    expect(smaller.omitted.letterBytes).toBeGreaterThan(Buffer.byteLength(full.MessageBody));
    expect(JSON.parse(sent[1] ?? '{}').MessageAttributes['outbox.messageId'].StringValue).toBe(
      LETTER.message?.id,
    );
  });

  it.each([
    ['throttled', sqsError('RequestThrottled', 'RequestThrottled', 403)],
    ['failing inside', sqsError('InternalFailure', 'InternalFailure', 500)],
  ])(
    'keeps the letter whole when the queue is %s, failing the send for a retry (injected)',
    async (_, answer) => {
      const { sink, sent } = publisher([answer, sqsSent]);
      await expect(sink.send(LETTER)).rejects.toBeInstanceOf(DeadLetterSendError);
      expect(sent).toHaveLength(1);
    },
  );

  it('fails with DeadLetterSendError when the queue refuses the smaller letter too (injected)', async () => {
    const { sink, sent } = publisher([TOO_LONG]);
    await expect(sink.send(LETTER)).rejects.toBeInstanceOf(DeadLetterSendError);
    expect(sent).toHaveLength(2);
  });

  it('sends no smaller letter when the queue refuses the letter for another reason than its size, and names that refusal (injected)', async () => {
    const missing = sqsError('QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue', 400);
    const { sink, sent } = publisher([missing]);
    await expect(sink.send(LETTER)).rejects.toMatchObject({
      cause: { name: 'QueueDoesNotExist' },
    });
    expect(sent).toHaveLength(1);
  });
});
