import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { AwsOutboxSender } from '../../../src/aws/AwsOutboxSender.js';
import { DestinationRefusedError, DestinationUnavailableError } from '../../../src/errors.js';
import { destinationBytes } from '../../../src/outbox/messageSize.js';
import { type OutgoingMessage, toOutgoingMessage } from '../../../src/outbox/OutgoingMessage.js';
import {
  answering,
  CONFIG,
  eventBridgeError,
  failedEntry,
  snsError,
  sqsError,
  type WireAnswer,
} from '../../support/awsWire.js';

/** AWS answers no emulator gives, injected below the SDK (see `awsWire`). */
function senderAnswering(answer: WireAnswer, sent: string[] = []): AwsOutboxSender {
  const requestHandler = answering(answer, sent);
  return new AwsOutboxSender({
    sqsClient: new SQSClient({ ...CONFIG, requestHandler }),
    snsClient: new SNSClient({ ...CONFIG, requestHandler }),
    eventBridgeClient: new EventBridgeClient({ ...CONFIG, requestHandler }),
  });
}

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

const RETRIED = 'retried';
const DEAD_LETTERED = 'dead-lettered';
type Outcome = typeof RETRIED | typeof DEAD_LETTERED;

async function outcomeOf(message: OutgoingMessage, answer: WireAnswer) {
  const error = await senderAnswering(answer)
    .send(message)
    .then(
      () => undefined,
      (caught: unknown) => caught,
    );
  if (error instanceof DestinationUnavailableError) return { outcome: RETRIED, code: error.code };
  if (error instanceof DestinationRefusedError) return { outcome: DEAD_LETTERED, code: error.code };
  throw new Error(`neither retried nor dead-lettered: ${String(error)}`);
}

// Each service's documented errors of the action the relay sends with, and of every action,
// with their HTTP status (the SDK's model); the outcome is stated here, not read from src.
const SNS_PUBLISH: ReadonlyArray<readonly [string, number, Outcome]> = [
  ['KMSThrottling', 400, RETRIED],
  ['KMSDisabled', 400, RETRIED],
  ['KMSInvalidState', 400, RETRIED],
  ['InternalError', 500, RETRIED],
  ['Throttled', 429, RETRIED],
  ['Throttling', 400, RETRIED],
  ['InternalFailure', 500, RETRIED],
  ['ServiceUnavailable', 503, RETRIED],
  ['RequestExpired', 400, RETRIED],
  ['ExpiredToken', 403, RETRIED],
  ['KMSAccessDenied', 400, DEAD_LETTERED],
  ['KMSNotFound', 400, DEAD_LETTERED],
  ['KMSOptInRequired', 403, DEAD_LETTERED],
  ['AuthorizationError', 403, DEAD_LETTERED],
  ['EndpointDisabled', 400, DEAD_LETTERED],
  ['InvalidParameter', 400, DEAD_LETTERED],
  ['ParameterValueInvalid', 400, DEAD_LETTERED],
  ['InvalidSecurity', 403, DEAD_LETTERED],
  ['NotFound', 404, DEAD_LETTERED],
  ['PlatformApplicationDisabled', 400, DEAD_LETTERED],
  ['ValidationException', 400, DEAD_LETTERED],
  ['AccessDenied', 403, DEAD_LETTERED],
  ['InvalidClientTokenId', 403, DEAD_LETTERED],
  ['OptInRequired', 403, DEAD_LETTERED],
  ['ValidationError', 400, DEAD_LETTERED],
  ['SomethingSnsAddsLater', 400, DEAD_LETTERED],
  ['SomethingSnsAddsLater', 502, RETRIED],
];

const SQS_SEND_MESSAGE: ReadonlyArray<readonly [string, string, number, Outcome]> = [
  ['KmsThrottled', 'KMS.ThrottlingException', 400, RETRIED],
  ['KmsDisabled', 'KMS.DisabledException', 400, RETRIED],
  ['KmsInvalidState', 'KMS.InvalidStateException', 400, RETRIED],
  ['RequestThrottled', 'RequestThrottled', 403, RETRIED],
  ['ThrottlingException', 'Throttling', 400, RETRIED],
  ['InternalFailure', 'InternalFailure', 500, RETRIED],
  ['ServiceUnavailable', 'ServiceUnavailable', 503, RETRIED],
  ['KmsAccessDenied', 'KMS.AccessDeniedException', 400, DEAD_LETTERED],
  ['KmsInvalidKeyUsage', 'KMS.InvalidKeyUsageException', 400, DEAD_LETTERED],
  ['KmsNotFound', 'KMS.NotFoundException', 400, DEAD_LETTERED],
  ['KmsOptInRequired', 'KMS.OptInRequired', 403, DEAD_LETTERED],
  ['InvalidAddress', 'InvalidAddress', 404, DEAD_LETTERED],
  ['InvalidMessageContents', 'InvalidMessageContents', 400, DEAD_LETTERED],
  ['InvalidSecurity', 'InvalidSecurity', 403, DEAD_LETTERED],
  ['QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue', 400, DEAD_LETTERED],
  ['UnsupportedOperation', 'AWS.SimpleQueueService.UnsupportedOperation', 400, DEAD_LETTERED],
  ['AccessDeniedException', 'AccessDenied', 403, DEAD_LETTERED],
  ['InvalidParameterValue', 'InvalidParameterValue', 400, DEAD_LETTERED],
  ['SomethingSqsAddsLater', 'AWS.SimpleQueueService.SomethingNew', 400, DEAD_LETTERED],
  ['SomethingSqsAddsLater', 'AWS.SimpleQueueService.SomethingNew', 500, RETRIED],
];

const PUT_EVENTS_REQUEST: ReadonlyArray<readonly [string, number, Outcome]> = [
  ['InternalException', 500, RETRIED],
  ['ThrottlingException', 400, RETRIED],
  ['ServiceUnavailable', 503, RETRIED],
  ['AccessDeniedException', 400, DEAD_LETTERED],
  ['ValidationException', 400, DEAD_LETTERED],
];

const PUT_EVENTS_ENTRY: ReadonlyArray<readonly [string, Outcome]> = [
  ['InternalFailure', RETRIED],
  ['ThrottlingException', RETRIED],
  ['AccessDeniedException', DEAD_LETTERED],
  ['InvalidAccountIdException', DEAD_LETTERED],
  ['InvalidArgument', DEAD_LETTERED],
  ['MalformedDetail', DEAD_LETTERED],
  ['RedactionFailure', DEAD_LETTERED],
  ['NotAuthorizedForSourceException', DEAD_LETTERED],
  ['NotAuthorizedForDetailTypeException', DEAD_LETTERED],
  ['SomethingEventBridgeAddsLater', DEAD_LETTERED],
];

describe("classifies a send's failure by its service's documented errors: passing ones retried, refusals dead-lettered, an unknown 4xx a refusal", () => {
  it.each(SNS_PUBLISH)(
    'SNS Publish answering %s (HTTP %i) is %s (injected)',
    async (code, status, outcome) => {
      expect(await outcomeOf(MESSAGES.sns, snsError(code, status))).toEqual({ outcome, code });
    },
  );

  it.each(SQS_SEND_MESSAGE)(
    'SQS SendMessage answering %s (%s, HTTP %i) is %s (injected)',
    async (name, code, status, outcome) => {
      expect(await outcomeOf(MESSAGES.sqs, sqsError(name, code, status))).toEqual({
        outcome,
        code,
      });
    },
  );

  it.each(PUT_EVENTS_REQUEST)(
    'EventBridge PutEvents failing as a request with %s (HTTP %i) is %s (injected)',
    async (name, status, outcome) => {
      expect(await outcomeOf(MESSAGES.eventbridge, eventBridgeError(name, status))).toEqual({
        outcome,
        code: name,
      });
    },
  );

  it.each(PUT_EVENTS_ENTRY)(
    'EventBridge PutEvents failing an entry with %s is %s (injected)',
    async (code, outcome) => {
      expect(await outcomeOf(MESSAGES.eventbridge, failedEntry(code))).toEqual({ outcome, code });
    },
  );
});

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
