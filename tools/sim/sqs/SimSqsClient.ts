import type { SendMessageCommandInput, SQSClient } from '@aws-sdk/client-sqs';
import {
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { type Caller, type Network, RequestChannel } from '../network/Network.js';
import { changeVisibility, changeVisibilityBatch } from './changeVisibilityBatch.js';
import type { SimQueue } from './SimQueue.js';

/**
 * An `SQSClient` stand-in for a Lambda container's code, through the simulated network as the
 * container's caller: `SendMessage` (what the library's dead-letter publisher sends) and
 * `ChangeMessageVisibility` / `ChangeMessageVisibilityBatch` (what a processor sends for the
 * records it retries) to the simulated queues. Any other command is refused by name.
 *
 * @example
 * ```ts
 * const sqsClient = simSqsClient([dlq, source], network, caller, () => kernel.nowMillis);
 * createBatchProcessor(handler, { ..., deadLetterQueueUrl: dlq.url, sqsClient });
 * ```
 */
export function simSqsClient(
  queues: readonly SimQueue[],
  network: Network,
  caller: Caller,
  nowMillis: () => number,
  /** An error the queue answers a send with instead of taking it (a refusal), if any. */
  refusal: (input: SendMessageCommandInput) => Error | undefined = () => undefined,
): SQSClient {
  const queueAt = (url: string | undefined) => {
    const queue = queues.find((candidate) => candidate.url === url);
    if (queue === undefined) throw new Error(`no simulated queue at ${url}`);
    return queue;
  };
  const send = async (command: unknown) => {
    if (command instanceof SendMessageCommand) {
      return sendMessage(queueAt(command.input.QueueUrl), command.input);
    }
    if (command instanceof ChangeMessageVisibilityCommand) {
      const { QueueUrl, ReceiptHandle, VisibilityTimeout } = command.input;
      const queue = queueAt(QueueUrl);
      return network.call(
        caller,
        'sqs',
        `ChangeMessageVisibility on ${queue.name}`,
        () => {
          changeVisibility(queue, ReceiptHandle, VisibilityTimeout, nowMillis());
          return {};
        },
        { tag: visibilityTag([ReceiptHandle]) },
      );
    }
    if (command instanceof ChangeMessageVisibilityBatchCommand) {
      const { QueueUrl, Entries = [] } = command.input;
      const queue = queueAt(QueueUrl);
      return network.call(
        caller,
        'sqs',
        `ChangeMessageVisibilityBatch on ${queue.name}`,
        () => changeVisibilityBatch(queue, Entries, nowMillis()),
        { tag: visibilityTag(Entries.map((entry) => entry.ReceiptHandle)) },
      );
    }
    throw new Error(`the simulated SQS client does not send ${describe(command)}`);
  };
  const sendMessage = (queue: SimQueue, input: SendMessageCommandInput) => {
    const requestedAtMillis = nowMillis();
    const sentBy = caller.invocationId;
    // A dead-lettered record is named by the messageId it had on the source queue.
    const original = input.MessageAttributes?.['inbox.originalMessageId']?.StringValue;
    return network.call(
      caller,
      'sqs',
      `SendMessage to ${queue.name}`,
      () => {
        const refused = refusal(input);
        if (refused !== undefined) throw refused;
        const sent = queue.send(
          {
            body: input.MessageBody ?? '',
            attributes: input.MessageAttributes,
            groupId: input.MessageGroupId,
            deduplicationId: input.MessageDeduplicationId,
            requestedAtMillis,
            sentBy,
          },
          nowMillis(),
        );
        return { MessageId: sent?.messageId };
      },
      {
        tag: {
          channel: RequestChannel.DeadLetter,
          subjects: original === undefined ? [] : [original],
        },
      },
    );
  };
  return { send } as unknown as SQSClient;
}

/** A visibility change is for the messages of its handles (a simulated handle starts with the messageId). */
function visibilityTag(handles: ReadonlyArray<string | undefined>) {
  const subjects = handles.flatMap((handle) =>
    handle === undefined ? [] : [handle.slice(0, Math.max(0, handle.lastIndexOf('/')))],
  );
  return { channel: RequestChannel.Visibility, subjects };
}

function describe(command: unknown): string {
  return (
    (command as { constructor?: { name?: string } } | null)?.constructor?.name ?? typeof command
  );
}
