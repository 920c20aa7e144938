import { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { DeadLetterPublisher } from '../../../src/aws/DeadLetterPublisher.js';
import { keyHash } from '../../../src/constants/index.js';
import { DeadLetterSendError, InvalidConfigurationError } from '../../../src/errors.js';
import { PermanentError } from '../../../src/index.js';
import { answering, CONFIG, sqsError, sqsSent } from '../../support/awsWire.js';
import { sqsRecord } from '../../support/sqsRecords.js';

describe('DeadLetterPublisher', () => {
  it('refuses to send a message back to the queue it came from, which would loop forever', async () => {
    const record = sqsRecord({ id: 1 });
    let sent = 0;
    const client = new SQSClient({ region: 'us-east-1' });
    client.send = (async () => {
      sent++;
      return {};
    }) as never;
    const sourceUrl = 'https://sqs.us-east-1.amazonaws.com/000000000000/orders';

    const send = new DeadLetterPublisher(sourceUrl, client).send(
      record,
      new PermanentError('x'),
      'c',
      { key: 'k' },
    );

    await expect(send).rejects.toBeInstanceOf(DeadLetterSendError);
    await expect(send).rejects.toMatchObject({ cause: expect.any(InvalidConfigurationError) });
    expect(sent).toBe(0);
  });
});

/** What SQS counts against a queue's MaximumMessageSize: the body, and each attribute's name, type and value. */
function awsCountedBytes(requestBody: string): number {
  const { MessageBody = '', MessageAttributes = {} } = JSON.parse(requestBody) as {
    MessageBody?: string;
    MessageAttributes?: Record<string, { DataType: string; StringValue?: string }>;
  };
  let bytes = Buffer.byteLength(MessageBody);
  for (const [name, value] of Object.entries(MessageAttributes)) {
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value.DataType);
    bytes += Buffer.byteLength(value.StringValue ?? '');
  }
  return bytes;
}

/** A DLQ whose MaximumMessageSize is `maxBytes`, refusing as AWS does what is larger. */
function dlqOfSize(maxBytes: number, sent: string[]) {
  const answer = (requestBody: string) =>
    awsCountedBytes(requestBody) > maxBytes
      ? sqsError('InvalidParameterValue', 'InvalidParameterValue', 400)
      : sqsSent(requestBody);
  return new SQSClient({ ...CONFIG, requestHandler: answering([answer], sent) });
}

describe('a dead letter the DLQ refuses as too large (injected: MiniStack counts the body only)', () => {
  const dlqUrl = 'https://sqs.eu-west-1.amazonaws.com/123456789012/ledger-dlq';
  const body = 'x'.repeat(900);
  const record = {
    ...sqsRecord({ id: 1 }),
    body,
    messageAttributes: {
      eventId: { dataType: 'String', stringValue: 'evt-1' },
      tenant: { dataType: 'String', stringValue: 't-1' },
    },
  } as unknown as SQSRecord;
  const error = new PermanentError('e'.repeat(800));
  const sentAttributes = (sent: string) =>
    (JSON.parse(sent) as { MessageAttributes: Record<string, { StringValue?: string }> })
      .MessageAttributes;

  it('is sent again without its error message and with its key hashed, keeping its reason and every attribute of its own', async () => {
    const sent: string[] = [];
    const publisher = new DeadLetterPublisher(dlqUrl, dlqOfSize(1_200, sent));

    await publisher.send(
      record,
      error,
      'ledger',
      { key: 'evt-1' },
      {
        key: 'evt-1',
        keyAttributes: ['eventId'],
      },
    );

    expect(sent).toHaveLength(2);
    const copy = sentAttributes(sent[1] ?? '{}');
    expect(copy['inbox.error']?.StringValue).toBe('PermanentError');
    expect(copy['inbox.keyHash']?.StringValue).toBe(keyHash('evt-1'));
    expect(copy).not.toHaveProperty('inbox.errorMessage');
    expect(copy).not.toHaveProperty('inbox.key');
    expect(copy.eventId?.StringValue).toBe('evt-1');
    expect(copy.tenant?.StringValue).toBe('t-1');
  });

  it('keeps only its reason and its own attributes when even that copy is too large', async () => {
    const sent: string[] = [];
    const publisher = new DeadLetterPublisher(dlqUrl, dlqOfSize(980, sent));

    await publisher.send(
      record,
      error,
      'ledger',
      { keyHash: keyHash('evt-1') },
      {
        key: 'evt-1',
        keyAttributes: ['eventId'],
      },
    );

    expect(sent).toHaveLength(3);
    expect(Object.keys(sentAttributes(sent[2] ?? '{}')).sort()).toEqual([
      'eventId',
      'inbox.error',
      'tenant',
    ]);
  });

  it('fails with DeadLetterSendError, for SQS to deliver the message again, when no copy fits', async () => {
    const sent: string[] = [];
    const publisher = new DeadLetterPublisher(dlqUrl, dlqOfSize(800, sent));

    const send = publisher.send(record, error, 'ledger', undefined, undefined);

    await expect(send).rejects.toBeInstanceOf(DeadLetterSendError);
    expect(sent).toHaveLength(3);
  });
});
