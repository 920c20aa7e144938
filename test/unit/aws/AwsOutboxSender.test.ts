import { Readable } from 'node:stream';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { AwsOutboxSender } from '../../../src/aws/AwsOutboxSender.js';
import { destinationBytes } from '../../../src/outbox/messageSize.js';
import { type OutgoingMessage, toOutgoingMessage } from '../../../src/outbox/OutgoingMessage.js';

/**
 * AWS answers no emulator gives (KMS throttling, a disabled key, 5xx…), injected below the SDK:
 * a request handler answers with the service's wire response, so the SDK itself builds the error
 * (its exception class as `name`, the query code as `Code`, the HTTP status in `$metadata`).
 */
interface WireAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

function answering(answer: WireAnswer, sent: string[] = []) {
  return {
    handle: async (request: { body?: unknown }) => {
      const { body } = request;
      sent.push(body instanceof Uint8Array ? new TextDecoder().decode(body) : String(body ?? ''));
      return {
        response: {
          statusCode: answer.status,
          headers: answer.headers,
          body: Readable.from([Buffer.from(answer.body)]),
        },
      };
    },
  } as never;
}

const CONFIG = {
  region: 'eu-west-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  maxAttempts: 1,
};

function senderAnswering(answer: WireAnswer, sent: string[] = []): AwsOutboxSender {
  const requestHandler = answering(answer, sent);
  return new AwsOutboxSender({
    sqsClient: new SQSClient({ ...CONFIG, requestHandler }),
    snsClient: new SNSClient({ ...CONFIG, requestHandler }),
    eventBridgeClient: new EventBridgeClient({ ...CONFIG, requestHandler }),
  });
}

/** SNS's query protocol: an XML error document with the wire code. */
const snsError = (code: string, status: number): WireAnswer => ({
  status,
  headers: { 'content-type': 'text/xml' },
  body: `<ErrorResponse><Error><Type>Sender</Type><Code>${code}</Code><Message>injected</Message></Error><RequestId>r-1</RequestId></ErrorResponse>`,
});
/** SQS's JSON protocol, query-compatible: the shape in `__type`, the query code in a header. */
const sqsError = (name: string, code: string, status: number): WireAnswer => ({
  status,
  headers: {
    'content-type': 'application/x-amz-json-1.0',
    'x-amzn-query-error': `${code};Sender`,
  },
  body: JSON.stringify({ __type: `com.amazonaws.sqs#${name}`, message: 'injected' }),
});
/** EventBridge's JSON protocol: the shape in `__type`. */
const eventBridgeError = (name: string, status: number): WireAnswer => ({
  status,
  headers: { 'content-type': 'application/x-amz-json-1.1' },
  body: JSON.stringify({ __type: name, message: 'injected' }),
});
const ID = 'c'.repeat(64);
const MESSAGES = {
  sqs: toOutgoingMessage(
    { destination: 'https://sqs.eu-west-1.amazonaws.com/123456789012/credits', body: 'b' },
    0,
    ID,
  ),
  sns: toOutgoingMessage(
    {
      destination: 'arn:aws:sns:eu-west-1:123456789012:credits.fifo',
      body: 'b',
      groupId: 'acc-1',
    },
    0,
    ID,
  ),
  eventbridge: toOutgoingMessage(
    {
      destination: 'arn:aws:events:eu-west-1:123456789012:event-bus/payments',
      body: { a: 1 },
      source: 'ledger',
      detailType: 'Credited',
    },
    0,
    ID,
  ),
};

/** What SQS and SNS count of a request the relay sent: the body, each attribute's name, type, value. */
function queueOrTopicCount(body: string, attributes: Array<[string, string, string]>): number {
  const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');
  return attributes.reduce(
    (sum, [name, type, value]) => sum + utf8(name) + utf8(type) + utf8(value),
    utf8(body),
  );
}

describe("counts a message's size exactly as its destination counts what the relay sends", () => {
  const anyFailure = sqsError('InternalFailure', 'InternalFailure', 500);
  const withAttributes = (message: OutgoingMessage) =>
    ({ ...message, attributes: { type: 'crédit', note: 'ж €' } }) as OutgoingMessage;

  it('an SQS SendMessage: MessageBody and each MessageAttribute', async () => {
    const sent: string[] = [];
    const message = withAttributes({ ...MESSAGES.sqs, body: 'naïve "body" €' });
    await senderAnswering(anyFailure, sent)
      .send(message)
      .catch(() => undefined);
    const request = JSON.parse(sent[0] ?? '{}') as {
      MessageBody: string;
      MessageAttributes: Record<string, { DataType: string; StringValue: string }>;
    };
    const attributes = Object.entries(request.MessageAttributes).map(
      ([name, value]): [string, string, string] => [name, value.DataType, value.StringValue],
    );
    expect(attributes).toHaveLength(3);
    expect(destinationBytes(message).totalBytes).toBe(
      queueOrTopicCount(request.MessageBody, attributes),
    );
  });

  it('an SNS Publish: Message and each MessageAttributes entry', async () => {
    const sent: string[] = [];
    const message = withAttributes({ ...MESSAGES.sns, body: 'naïve "body" €' });
    await senderAnswering(snsError('InternalError', 500), sent)
      .send(message)
      .catch(() => undefined);
    const form = new URLSearchParams(sent[0] ?? '');
    const attributes: Array<[string, string, string]> = [];
    for (let i = 1; form.has(`MessageAttributes.entry.${i}.Name`); i++) {
      const at = (field: string) => form.get(`MessageAttributes.entry.${i}.${field}`) ?? '';
      attributes.push([at('Name'), at('Value.DataType'), at('Value.StringValue')]);
    }
    expect(attributes).toHaveLength(3);
    expect(destinationBytes(message).totalBytes).toBe(
      queueOrTopicCount(form.get('Message') ?? '', attributes),
    );
  });

  it('an EventBridge entry: Source, DetailType, Detail, and 14 for the Time EventBridge stamps', async () => {
    const sent: string[] = [];
    const message = { ...MESSAGES.eventbridge, source: 'lédger' };
    await senderAnswering(eventBridgeError('InternalException', 500), sent)
      .send(message)
      .catch(() => undefined);
    const [entry] = (JSON.parse(sent[0] ?? '{}') as { Entries: Record<string, unknown>[] }).Entries;
    expect(Object.keys(entry ?? {}).sort()).toEqual([
      'Detail',
      'DetailType',
      'EventBusName',
      'Source',
    ]);
    const counted = ['Source', 'DetailType', 'Detail'].reduce(
      (sum, field) => sum + Buffer.byteLength(String(entry?.[field]), 'utf8'),
      14,
    );
    expect(destinationBytes(message).totalBytes).toBe(counted);
  });
});
