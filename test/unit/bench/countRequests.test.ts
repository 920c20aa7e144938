import { createHash } from 'node:crypto';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { countRequests, EMPTY_RECEIVE } from '../../../bench/countRequests.js';
import { answering, CONFIG, sqsError, type WireAnswer } from '../../support/awsWire.js';

const QueueUrl = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders';
const json = (body: unknown): WireAnswer => ({
  status: 200,
  headers: { 'content-type': 'application/x-amz-json-1.0' },
  body: JSON.stringify(body),
});
const oneMessage = json({
  Messages: [
    {
      MessageId: 'm-1',
      ReceiptHandle: 'h-1',
      Body: '{}',
      MD5OfBody: createHash('md5').update('{}').digest('hex'),
    },
  ],
});

describe("bench:retry's request counter", () => {
  it('counts requests by operation, a receive that brought no message apart', async () => {
    const answers = [oneMessage, json({}), json({ Successful: [], Failed: [] })];
    const sqs = new SQSClient({ ...CONFIG, requestHandler: answering(answers) });
    const requests = countRequests(sqs);

    await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
    await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
    await sqs.send(
      new DeleteMessageBatchCommand({ QueueUrl, Entries: [{ Id: '1', ReceiptHandle: 'h-1' }] }),
    );

    expect(Object.fromEntries(requests)).toEqual({
      ReceiveMessage: 1,
      [EMPTY_RECEIVE]: 1,
      DeleteMessageBatch: 1,
    });
  });

  it('counts each attempt the SDK retries, the refused one too (injected 500: no emulator answers one)', async () => {
    const answers = [sqsError('InternalError', 'InternalError', 500), oneMessage];
    const sqs = new SQSClient({ ...CONFIG, maxAttempts: 2, requestHandler: answering(answers) });
    const requests = countRequests(sqs);

    await sqs.send(new ReceiveMessageCommand({ QueueUrl }));

    expect(Object.fromEntries(requests)).toEqual({ ReceiveMessage: 2 });
  });
});
