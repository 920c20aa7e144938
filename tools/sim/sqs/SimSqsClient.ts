import type { SendMessageCommandInput, SQSClient } from '@aws-sdk/client-sqs';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { type Caller, type Network, RequestChannel } from '../network/Network.js';
import type { SimQueue } from './SimQueue.js';

/**
 * An `SQSClient` stand-in for a Lambda container's code: `SendMessage` (what the library's
 * dead-letter publisher sends) to the simulated queues, through the simulated network as the
 * container's caller. Any other command is refused by name.
 *
 * @example
 * ```ts
 * const sqsClient = simSqsClient([dlq], network, caller);
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
  const send = async (command: unknown) => {
    if (!(command instanceof SendMessageCommand)) {
      throw new Error(
        `the simulated SQS client only sends SendMessageCommand, not ${describe(command)}`,
      );
    }
    const input = command.input;
    const queue = queues.find((candidate) => candidate.url === input.QueueUrl);
    if (queue === undefined) throw new Error(`no simulated queue at ${input.QueueUrl}`);
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

function describe(command: unknown): string {
  return (
    (command as { constructor?: { name?: string } } | null)?.constructor?.name ?? typeof command
  );
}
