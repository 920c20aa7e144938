import { type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';

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
