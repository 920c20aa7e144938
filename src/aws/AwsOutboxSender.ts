import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DestinationKind, OUTBOX_LIMITS, TraceCarrier } from '../constants/values.js';
import { toXRayHeader } from '../core/traceContext.js';
import { DestinationRefusedError, DestinationUnavailableError } from '../errors.js';
import {
  destinationBytes,
  SENT_ATTRIBUTE_DATA_TYPE,
  sentAttributes,
  utf8Bytes,
} from '../outbox/messageSize.js';
import type { OutboxSender, OutgoingTrace } from '../outbox/OutboxSender.js';
import type { OutgoingMessage } from '../outbox/OutgoingMessage.js';
import { BOUNDED_REQUEST_HANDLER } from './boundedRequestHandler.js';
import { entryFailure, sendFailure, serviceOf } from './sendFailure.js';
import { sqsSendInput, stringAttributes } from './sqsSendInput.js';

/**
 * Options of {@link AwsOutboxSender}: the clients to send with, each built on first use when
 * not given (from the environment, as Lambda sets it, with bounded connection and request
 * timeouts).
 *
 * @example
 * ```ts
 * import { SQSClient } from '@aws-sdk/client-sqs';
 * const options: AwsOutboxSenderOptions = { sqsClient: new SQSClient({ maxAttempts: 5 }) };
 * ```
 * @public
 */
export interface AwsOutboxSenderOptions {
  /** Sends to SQS queues, and the relay's dead letters when `deadLetter.client` is not given. */
  readonly sqsClient?: SQSClient;
  /** Publishes to SNS topics. */
  readonly snsClient?: SNSClient;
  /** Puts events on EventBridge event buses. */
  readonly eventBridgeClient?: EventBridgeClient;
}

/**
 * Sends outgoing messages where they go, with their outbox id: SQS `SendMessage` and SNS
 * `Publish` with the `outbox.messageId` attribute (and, on FIFO, the group and the id as
 * deduplication id), EventBridge `PutEvents` with the id inside `detail`. A failure is judged
 * by the service's documented errors (`sendVerdict`, `entryFailure`): a refusal is thrown as
 * `DestinationRefusedError`, anything passing (throttling, KMS throttling, a KMS key disabled for
 * now, a 5xx) as `DestinationUnavailableError`.
 *
 * @example
 * ```ts
 * import type { OutgoingMessage } from 'sqs-inbox/types';
 * declare const outgoing: OutgoingMessage;
 * // ---cut---
 * const sender = new AwsOutboxSender();
 * await sender.send(outgoing); // one call per message
 * ```
 * @public
 */
export class AwsOutboxSender implements OutboxSender {
  readonly #options: AwsOutboxSenderOptions;
  #sqs: SQSClient | undefined;
  #sns: SNSClient | undefined;
  #eventBridge: EventBridgeClient | undefined;

  constructor(options: AwsOutboxSenderOptions = {}) {
    this.#options = options;
  }

  /** The SQS client, also used for the relay's dead letters. */
  get sqsClient(): SQSClient {
    this.#sqs ??=
      this.#options.sqsClient ?? new SQSClient({ requestHandler: BOUNDED_REQUEST_HANDLER });
    return this.#sqs;
  }

  /**
   * Sends one message with the client of its destination's kind. Throws
   * `DestinationRefusedError` when the destination refuses it for good,
   * `DestinationUnavailableError` for anything passing.
   */
  async send(message: OutgoingMessage, trace?: OutgoingTrace): Promise<void> {
    try {
      await this.#dispatch(message, trace?.traceparent);
    } catch (error) {
      if (error instanceof DestinationRefusedError) throw error;
      if (error instanceof DestinationUnavailableError) throw error;
      throw sendFailure(error, serviceOf(message.kind), message.destination, message.id);
    }
  }

  async #dispatch(message: OutgoingMessage, traceparent: string | undefined): Promise<void> {
    switch (message.kind) {
      case DestinationKind.SqsQueue:
      case DestinationKind.SqsFifoQueue:
        await this.sqsClient.send(new SendMessageCommand(sqsSendInput(message, traceparent)));
        return;
      case DestinationKind.SnsTopic:
      case DestinationKind.SnsFifoTopic:
        this.#sns ??=
          this.#options.snsClient ?? new SNSClient({ requestHandler: BOUNDED_REQUEST_HANDLER });
        await this.#sns.send(snsCommand(message, traceparent));
        return;
      case DestinationKind.EventBus:
        await this.#putEvent(message, traceparent);
        return;
    }
  }

  async #putEvent(message: OutgoingMessage, traceparent: string | undefined): Promise<void> {
    const traceHeader = traceparent === undefined ? undefined : toXRayHeader(traceparent);
    this.#eventBridge ??=
      this.#options.eventBridgeClient ??
      new EventBridgeClient({ requestHandler: BOUNDED_REQUEST_HANDLER });
    const { FailedEntryCount, Entries } = await this.#eventBridge.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: message.destination,
            Source: message.source,
            DetailType: message.detailType,
            Detail: message.body,
            ...(traceHeader === undefined ? {} : { TraceHeader: traceHeader }),
          },
        ],
      }),
    );
    if (!FailedEntryCount) return;
    // PutEvents answers 200 and reports each entry's failure in the entry.
    throw entryFailure(Entries?.[0]?.ErrorCode ?? 'FailedEntry', message.destination, message.id);
  }
}

/**
 * SNS has no system attribute: the context goes as a `traceparent` message attribute (what
 * OpenTelemetry's SNS instrumentation sends), only where it fits — within the ten attributes a
 * subscribed queue accepts and the topic's size limit — and never over one the producer set.
 */
function snsTrace(
  message: OutgoingMessage,
  traceparent: string | undefined,
): Record<string, string> {
  if (traceparent === undefined || toXRayHeader(traceparent) === undefined) return {};
  const sent = sentAttributes(message);
  if (TraceCarrier.TraceParent in sent) return {};
  if (Object.keys(sent).length >= OUTBOX_LIMITS.attributes + 1) return {};
  const bytes =
    utf8Bytes(TraceCarrier.TraceParent) +
    utf8Bytes(SENT_ATTRIBUTE_DATA_TYPE) +
    utf8Bytes(traceparent);
  const limit = OUTBOX_LIMITS.maxBytesByKind[message.kind];
  if (destinationBytes(message).totalBytes + bytes > limit) return {};
  return { [TraceCarrier.TraceParent]: traceparent };
}

function snsCommand(message: OutgoingMessage, traceparent?: string): PublishCommand {
  const fifo = message.kind === DestinationKind.SnsFifoTopic;
  return new PublishCommand({
    TopicArn: message.destination,
    Message: message.body,
    MessageAttributes: stringAttributes(message, snsTrace(message, traceparent)),
    ...(fifo ? { MessageGroupId: message.groupId, MessageDeduplicationId: message.id } : {}),
  });
}
