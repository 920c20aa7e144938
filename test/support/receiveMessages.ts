import {
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';

/**
 * Receives what a queue holds (up to 10 messages, every attribute, a 1 s wait) without
 * deleting it: to see what reached a DLQ.
 */
export async function receiveMessages(sqs: SQSClient, queueUrl: string): Promise<Message[]> {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 1,
      MessageAttributeNames: ['All'],
      MessageSystemAttributeNames: ['All'],
    }),
  );
  return Messages;
}

/**
 * Receives and deletes a queue's messages (every attribute) until `count` came or `waitMillis`
 * passed: what reached a destination, taken so the next test sees only its own.
 */
export async function takeMessages(
  sqs: SQSClient,
  queueUrl: string,
  count: number,
  waitMillis = 15_000,
): Promise<Message[]> {
  const taken: Message[] = [];
  const until = Date.now() + waitMillis;
  while (taken.length < count && Date.now() < until) {
    for (const message of await receiveMessages(sqs, queueUrl)) {
      taken.push(message);
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }),
      );
    }
  }
  return taken;
}
