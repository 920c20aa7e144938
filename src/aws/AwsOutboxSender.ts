import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DestinationKind } from '../constants/values.js';
import { DestinationRefusedError, DestinationUnavailableError } from '../errors.js';
import { SENT_ATTRIBUTE_DATA_TYPE, sentAttributes } from '../outbox/messageSize.js';
import type { OutboxSender } from '../outbox/OutboxSender.js';
import type { OutgoingMessage } from '../outbox/OutgoingMessage.js';
import { BOUNDED_REQUEST_HANDLER } from './boundedRequestHandler.js';
import { entryFailure, sendFailure, serviceOf } from './sendFailure.js';

/**
 * Options of {@link AwsOutboxSender}: the clients to send with, each built on first use when
 * not given (from the environment, as Lambda sets it, with bounded connection and request
 * timeouts).
 *
 * @example
 * ```ts
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
 * const sender = new AwsOutboxSender();
 * await sender.send(message); // one call per message
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
  async send(message: OutgoingMessage): Promise<void> {
    try {
      await this.#dispatch(message);
    } catch (error) {
      if (error instanceof DestinationRefusedError) throw error;
      if (error instanceof DestinationUnavailableError) throw error;
      throw sendFailure(error, serviceOf(message.kind), message.destination, message.id);
    }
  }

  async #dispatch(message: OutgoingMessage): Promise<void> {
    switch (message.kind) {
      case DestinationKind.SqsQueue:
      case DestinationKind.SqsFifoQueue:
        await this.sqsClient.send(sqsCommand(message));
        return;
      case DestinationKind.SnsTopic:
      case DestinationKind.SnsFifoTopic:
        this.#sns ??=
          this.#options.snsClient ?? new SNSClient({ requestHandler: BOUNDED_REQUEST_HANDLER });
        await this.#sns.send(snsCommand(message));
        return;
      case DestinationKind.EventBus:
        await this.#putEvent(message);
        return;
    }
  }

  async #putEvent(message: OutgoingMessage): Promise<void> {
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
          },
        ],
      }),
    );
    if (!FailedEntryCount) return;
    // PutEvents answers 200 and reports each entry's failure in the entry.
    throw entryFailure(Entries?.[0]?.ErrorCode ?? 'FailedEntry', message.destination, message.id);
  }
}

// Built by the function `tx.publish` counts the size with, so the check and the send agree.
function stringAttributes(message: OutgoingMessage) {
  const attributes: Record<string, { DataType: string; StringValue: string }> = {};
  for (const [name, value] of Object.entries(sentAttributes(message))) {
    attributes[name] = { DataType: SENT_ATTRIBUTE_DATA_TYPE, StringValue: value };
  }
  return attributes;
}

function sqsCommand(message: OutgoingMessage): SendMessageCommand {
  const fifo = message.kind === DestinationKind.SqsFifoQueue;
  return new SendMessageCommand({
    QueueUrl: message.destination,
    MessageBody: message.body,
    MessageAttributes: stringAttributes(message),
    ...(message.groupId === undefined ? {} : { MessageGroupId: message.groupId }),
    ...(fifo ? { MessageDeduplicationId: message.id } : {}),
  });
}

function snsCommand(message: OutgoingMessage): PublishCommand {
  const fifo = message.kind === DestinationKind.SnsFifoTopic;
  return new PublishCommand({
    TopicArn: message.destination,
    Message: message.body,
    MessageAttributes: stringAttributes(message),
    ...(fifo ? { MessageGroupId: message.groupId, MessageDeduplicationId: message.id } : {}),
  });
}
