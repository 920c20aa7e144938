import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeadLetterPublisher } from '../../../src/aws/DeadLetterPublisher.js';
import { PermanentError } from '../../../src/index.js';
import { toOutgoingMessage } from '../../../src/outbox/OutgoingMessage.js';
import { AwsOutboxSender } from '../../../src/relay/index.js';
import { sqsRecord } from '../../support/sqsRecords.js';

const BOUNDS = { connectionTimeout: 3_000, requestTimeout: 10_000, throwOnRequestTimeout: true };
const ID = 'b'.repeat(64);
const BUS = 'arn:aws:events:eu-west-1:123456789012:event-bus/payments';

/**
 * The request handler settings of the client that sends through `Client`: its `send` is replaced
 * (no request leaves the test) only to see which client instance the library built, and how.
 */
function capture(Client: { prototype: { send: unknown } }) {
  const seen: Array<Promise<Record<string, unknown>>> = [];
  vi.spyOn(Client.prototype as { send: () => unknown }, 'send').mockImplementation(function (this: {
    config: { requestHandler: unknown };
  }) {
    const handler = this.config.requestHandler as {
      configProvider: Promise<Record<string, unknown>>;
    };
    seen.push(handler.configProvider);
    return Promise.resolve({ FailedEntryCount: 0, Entries: [{ EventId: 'e' }] });
  });
  return seen;
}

describe("the clients the library builds itself (send replaced, to read the built client's settings)", () => {
  afterEach(() => vi.restoreAllMocks());
  process.env.AWS_REGION ??= 'us-east-1';

  it.each([
    [
      'SQS queue',
      SQSClient,
      { destination: 'https://sqs.eu-west-1.amazonaws.com/123456789012/credits' },
    ],
    ['SNS topic', SNSClient, { destination: 'arn:aws:sns:eu-west-1:123456789012:credits' }],
    [
      'event bus',
      EventBridgeClient,
      { destination: BUS, source: 'ledger', detailType: 'Credited' },
    ],
  ] as const)(
    'the relay sends to an %s with bounded connection and request timeouts',
    async (_, Client, address) => {
      const seen = capture(Client);
      const input = { ...address, body: { credited: true } };

      await new AwsOutboxSender().send(toOutgoingMessage(input, 0, ID));

      expect(seen).toHaveLength(1);
      expect(await seen[0]).toMatchObject(BOUNDS);
    },
  );

  it('the dead-letter publisher sends with bounded connection and request timeouts', async () => {
    const seen = capture(SQSClient);
    const publisher = new DeadLetterPublisher('https://sqs.eu-west-1.amazonaws.com/1/dlq');

    await publisher.send(sqsRecord({ id: 1 }), new PermanentError('x'), 'c', { key: 'k' });

    expect(seen).toHaveLength(1);
    expect(await seen[0]).toMatchObject(BOUNDS);
  });
});
