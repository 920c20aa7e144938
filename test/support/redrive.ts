import {
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { toRecord } from '../../tools/local/LocalEventSourceMapping.js';
import type { TestAws } from '../harness/aws.js';

/** A source queue whose redrive policy moves a message to its DLQ after `maxReceiveCount`. */
export async function queueWithRedrivePolicy(aws: TestAws, fifo: boolean, maxReceiveCount = 1) {
  const suffix = fifo ? '.fifo' : '';
  const dlq = await aws.createQueue(`${aws.uniqueName('redrive-dlq')}${suffix}`);
  const source = await aws.createQueue(`${aws.uniqueName('redrive-source')}${suffix}`, {
    VisibilityTimeout: '1',
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount }),
  });
  return { source, dlq };
}

/** Receives one message with every attribute, waiting up to `waitSeconds`. */
export async function receiveOne(
  sqs: SQSClient,
  queueUrl: string,
  waitSeconds = 5,
): Promise<Message | undefined> {
  const { Messages } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 1,
      WaitTimeSeconds: waitSeconds,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }),
  );
  return Messages?.[0];
}

/**
 * Receives the message again and again, never deleting it, as Lambda does when every invocation
 * after the commit times out, until the redrive policy has moved it to the DLQ; returns the
 * DLQ's copy.
 */
export async function letRedrivePolicyMove(
  sqs: SQSClient,
  queues: { source: { url: string }; dlq: { url: string } },
): Promise<Message> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const moved = await receiveOne(sqs, queues.dlq.url, 0);
    if (moved) return moved;
    await receiveOne(sqs, queues.source.url, 2);
  }
  throw new Error('the redrive policy never moved the message to the DLQ');
}

/**
 * Moves a DLQ message back to its source queue as an SQS redrive does: a new message with the
 * same body and attributes; on FIFO the same group and, as its deduplication id, the message's
 * original messageId (AWS's documented behaviour). Neither emulator runs StartMessageMoveTask,
 * so the move is made with SendMessage.
 */
export async function redriveAsSqsDoes(
  sqs: SQSClient,
  dead: Message,
  queues: { source: { url: string; arn: string }; dlq: { url: string } },
): Promise<SQSRecord> {
  const fifo = queues.source.url.endsWith('.fifo');
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queues.source.url,
      MessageBody: dead.Body,
      MessageAttributes: dead.MessageAttributes,
      ...(fifo
        ? {
            MessageGroupId: dead.Attributes?.MessageGroupId,
            MessageDeduplicationId: dead.MessageId,
          }
        : {}),
    }),
  );
  await sqs.send(
    new DeleteMessageCommand({ QueueUrl: queues.dlq.url, ReceiptHandle: dead.ReceiptHandle }),
  );
  const redriven = await receiveOne(sqs, queues.source.url);
  if (!redriven) throw new Error('the redriven message did not arrive');
  return toRecord(redriven, queues.source.arn);
}
