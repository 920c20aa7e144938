import { randomUUID } from 'node:crypto';
import { type MessageAttributeValue, SendMessageCommand } from '@aws-sdk/client-sqs';
import { Consumer } from 'sqs-consumer';
import { onTestFinished } from 'vitest';
import { DeadLetterAttribute } from '../../src/constants/index.js';
import { keyHash } from '../../src/core/loggedKey.js';
import type { BatchProcessor } from '../../src/index.js';
import { toRecord } from '../../tools/local/LocalEventSourceMapping.js';
import type { TestAws } from '../harness/aws.js';

type Queue = { readonly url: string; readonly arn: string };

/** What the library records on a message it dead-letters itself (no key: its hash only). */
export interface LibraryDeadLetter {
  readonly body: string;
  readonly reason: string;
  readonly consumer: string;
  readonly source: Queue;
  readonly key: string;
  /** On a FIFO DLQ: the message's group (its deduplication id is fresh). */
  readonly groupId?: string;
  /** The id it had on the source queue; a fresh one when not given. */
  readonly originalMessageId?: string;
}

/**
 * Puts a message in `dlq` as the library dead-letters one: its body, its reason, consumer,
 * original message id, source queue and key hash. Returns the DLQ message's id.
 */
export async function sendLibraryDeadLetter(
  aws: TestAws,
  dlq: Queue,
  letter: LibraryDeadLetter,
): Promise<string> {
  const text = (value: string): MessageAttributeValue => ({
    DataType: 'String',
    StringValue: value,
  });
  const { MessageId } = await aws.sqs.send(
    new SendMessageCommand({
      QueueUrl: dlq.url,
      MessageBody: letter.body,
      MessageAttributes: {
        [DeadLetterAttribute.Error]: text(letter.reason),
        [DeadLetterAttribute.Consumer]: text(letter.consumer),
        [DeadLetterAttribute.OriginalMessageId]: text(letter.originalMessageId ?? randomUUID()),
        [DeadLetterAttribute.SourceQueueArn]: text(letter.source.arn),
        [DeadLetterAttribute.KeyHash]: text(keyHash(letter.key)),
      },
      ...(letter.groupId === undefined
        ? {}
        : { MessageGroupId: letter.groupId, MessageDeduplicationId: randomUUID() }),
    }),
  );
  if (!MessageId) throw new Error(`no message id for a dead letter sent to ${dlq.url}`);
  return MessageId;
}

/**
 * A consumer draining `queue` as Lambda's event source mapping does: batches through the
 * processor, only the records not reported failed deleted. Stopped by `stop()` or when the
 * test ends.
 */
export function drainingConsumer(
  aws: TestAws,
  queue: Queue,
  processor: BatchProcessor,
): { stop: () => void } {
  const poller = Consumer.create({
    queueUrl: queue.url,
    sqs: aws.sqs,
    batchSize: 10,
    waitTimeSeconds: 1,
    pollingWaitTimeMs: 100,
    attributeNames: ['All'],
    messageAttributeNames: ['All'],
    messageSystemAttributeNames: ['All'],
    suppressFifoWarning: true,
    handleMessageBatch: async (messages) => {
      const response = await processor.process({
        Records: messages.map((message) => toRecord(message, queue.arn)),
      });
      const failed = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
      return messages.filter((message) => !failed.has(message.MessageId ?? ''));
    },
  });
  let stopped = false;
  poller.on('error', (error) => {
    if (!stopped) console.error(`[draining ${queue.url}] ${error.message}`);
  });
  poller.start();
  const stop = () => {
    stopped = true;
    poller.stop({ abort: true });
  };
  onTestFinished(stop);
  return { stop };
}
