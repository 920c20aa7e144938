import {
  type MessageAttributeValue,
  SendMessageCommand,
  type SendMessageCommandInput,
} from '@aws-sdk/client-sqs';
import { InMemoryQueues } from '../../../../src/testing/index.js';

/** SQS's message size quota, in bytes. */
export const MiB = 1_048_576;
/** A `String` message attribute of this value. */
export const text = (StringValue: string): MessageAttributeValue => ({
  DataType: 'String',
  StringValue,
});

/** A standard and a FIFO queue, and a send that answers the SDK's error instead of throwing. */
export function queuesWithIds() {
  let next = 0;
  let nowMillis = 0;
  const queues = new InMemoryQueues({ now: () => nowMillis, messageIds: () => `m-${++next}` });
  const standard = queues.createQueue('payments');
  const fifo = queues.createQueue('payments.fifo');
  const send = (input: Omit<SendMessageCommandInput, 'QueueUrl'> & { QueueUrl?: string }) =>
    queues.client
      .send(new SendMessageCommand({ QueueUrl: standard, ...input }))
      .catch((error: unknown) => error as Error);
  const advanceMillis = (millis: number) => {
    nowMillis += millis;
  };
  return { queues, standard, fifo, send, advanceMillis };
}
