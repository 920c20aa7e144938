import { GetQueueUrlCommand, QueueDoesNotExist, SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { DeadLetterAttribute } from '../../../src/constants/index.js';
import { createBatchProcessor, DynamoDBInboxStore, PermanentError } from '../../../src/index.js';
import { InMemoryDynamoDB, InMemoryQueues, NotModelledError } from '../../../src/testing/index.js';
import { sqsEvent, sqsRecord } from '../../support/sqsRecords.js';

describe('InMemoryQueues', () => {
  it('takes the dead letter the library sends for a permanent error, with its reason', async () => {
    const queues = new InMemoryQueues();
    const queueUrl = queues.createQueue('ledger-dlq');
    const dynamo = new InMemoryDynamoDB().createTable({
      tableName: 'inbox',
      partitionKey: 'pk',
      timeToLiveAttribute: 'expiresAt',
    });
    const processor = createBatchProcessor(
      async () => {
        throw new PermanentError('unknown account');
      },
      {
        store: new DynamoDBInboxStore({ tableName: 'inbox', client: dynamo.documentClient }),
        consumer: 'ledger',
        key: ({ messageId }) => messageId,
        deadLetter: { queueUrl, maxReceiveCount: 5, client: queues.client },
      },
    );
    const record = sqsRecord({ eventId: 'e-1' });
    const [outcome] = await processor.processRecords(sqsEvent(record));
    expect(outcome?.status).toBe('deadLettered');
    const [dead, ...more] = queues.messages(queueUrl);
    expect(more).toEqual([]);
    expect(dead?.body).toBe(record.body);
    expect(dead?.attributes[DeadLetterAttribute.Error]).toBe('PermanentError');
  });

  it('deduplicates a FIFO send by its deduplication id for five minutes, as SQS does', async () => {
    let nowMillis = 0;
    const queues = new InMemoryQueues({ now: () => nowMillis });
    const QueueUrl = queues.createQueue('payments.fifo');
    const send = () =>
      queues.client.send(
        new SendMessageCommand({
          QueueUrl,
          MessageBody: 'b',
          MessageGroupId: 'g',
          MessageDeduplicationId: 'd',
        }),
      );
    const first = await send();
    nowMillis += 299_000;
    expect((await send()).MessageId).toBe(first.MessageId);
    expect(queues.messages(QueueUrl)).toHaveLength(1);
    nowMillis += 2_000;
    await send();
    expect(queues.messages(QueueUrl)).toHaveLength(2);
  });

  it('answers what SQS answers: a FIFO send without a group, a queue that does not exist', async () => {
    const queues = new InMemoryQueues();
    const QueueUrl = queues.createQueue('payments.fifo');
    await expect(
      queues.client.send(new SendMessageCommand({ QueueUrl, MessageBody: 'b' })),
    ).rejects.toMatchObject({ name: 'MissingParameter' });
    await expect(
      queues.client.send(
        new SendMessageCommand({ QueueUrl: `${QueueUrl}-gone`, MessageBody: 'b' }),
      ),
    ).rejects.toBeInstanceOf(QueueDoesNotExist);
    await expect(
      queues.client.send(new GetQueueUrlCommand({ QueueName: 'x' })),
    ).rejects.toBeInstanceOf(NotModelledError);
  });
});
