import {
  GetQueueUrlCommand,
  QueueDoesNotExist,
  SendMessageCommand,
  type SendMessageCommandInput,
} from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { DeadLetterAttribute } from '../../../src/constants/index.js';
import { createBatchProcessor, DynamoDBInboxStore, PermanentError } from '../../../src/index.js';
import { InMemoryDynamoDB, InMemoryQueues, NotModelledError } from '../../../src/testing/index.js';
import { checkSendMessage, MAX_MESSAGE_BYTES } from '../../../src/testing/sqs/checkSendMessage.js';
import { sqsEvent, sqsRecord } from '../../support/sqsRecords.js';
import { MiB, queuesWithIds, text } from './sqs/queuesWithIds.js';

/** A processor that dead-letters every record to `queueUrl` with `error`. */
function deadLettering(queues: InMemoryQueues, queueUrl: string, error: Error) {
  const dynamo = new InMemoryDynamoDB().createTable({
    tableName: 'inbox',
    partitionKey: 'pk',
    timeToLiveAttribute: 'expiresAt',
  });
  return createBatchProcessor(
    async () => {
      throw error;
    },
    {
      store: new DynamoDBInboxStore({ tableName: 'inbox', client: dynamo.documentClient }),
      consumer: 'ledger',
      key: ({ messageId }) => messageId,
      deadLetter: { queueUrl, maxReceiveCount: 5, client: queues.client },
    },
  );
}

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

  it('takes a body and attributes of 1 MiB together, counting each attribute’s name, type and value, and refuses one byte more (InvalidParameterValue)', async () => {
    const { queues, standard, send } = queuesWithIds();
    const attributes = {
      note: text('héllo'),
      blob: { DataType: 'Binary', BinaryValue: new Uint8Array(3) },
    };
    const attributeBytes = 'note'.length + 'String'.length + 'héllo'.length + 1 + 4 + 6 + 3;
    const body = (bytes: number) => 'x'.repeat(bytes);

    const fits = await send({
      MessageBody: body(MiB - attributeBytes),
      MessageAttributes: attributes,
    });
    const over = await send({
      MessageBody: body(MiB - attributeBytes + 1),
      MessageAttributes: attributes,
    });

    expect(fits).not.toBeInstanceOf(Error);
    expect(over).toMatchObject({
      name: 'InvalidParameterValue',
      message: `One or more parameters are invalid. Reason: Message must be shorter than ${MiB} bytes.`,
    });
    expect(queues.messages(standard)).toHaveLength(1);
    expect(MAX_MESSAGE_BYTES).toBe(MiB);
  });

  it('sends a dead letter too large with every annotation as the smaller copy: no error message, the key by its hash', async () => {
    const queues = new InMemoryQueues();
    const queueUrl = queues.createQueue('ledger-dlq');
    const error = new PermanentError(`unknown account ${'x'.repeat(1_000)}`);
    const record = sqsRecord({ note: 'b'.repeat(MiB - 700) });

    const [outcome] = await deadLettering(queues, queueUrl, error).processRecords(sqsEvent(record));

    expect(outcome?.status).toBe('deadLettered');
    const [dead] = queues.messages(queueUrl);
    expect(dead?.body).toBe(record.body);
    expect(dead?.attributes[DeadLetterAttribute.Error]).toBe('PermanentError');
    expect(dead?.attributes).not.toHaveProperty(DeadLetterAttribute.ErrorMessage);
    expect(dead?.attributes).toHaveProperty(DeadLetterAttribute.KeyHash);
  });

  it('raises NotModelledError naming a parameter it does not model', async () => {
    const { send } = queuesWithIds();

    const system = await send({
      MessageBody: 'b',
      MessageSystemAttributes: { AWSTraceHeader: text('Root=1-5759e988-bd862e3fe1be46a994272793') },
    });
    const other = await send({
      MessageBody: 'b',
      MessageSystemAttributes: {
        Other: text('x'),
      } as SendMessageCommandInput['MessageSystemAttributes'],
    });
    const list = await send({
      MessageBody: 'b',
      MessageAttributes: { tags: { DataType: 'String', StringListValues: ['a'] } },
    });

    expect(system).not.toBeInstanceOf(Error);
    expect(other).toBeInstanceOf(NotModelledError);
    expect((other as NotModelledError).message).toMatch(
      /^The in-memory SQS does not model MessageSystemAttributes\.Other of SendMessage/,
    );
    expect((list as NotModelledError).feature).toBe('list values of MessageAttributes.tags');
    expect(() => checkSendMessage({ MessageBody: 'b', Future: 1 } as never, false)).toThrow(
      /does not model Future of SendMessage/,
    );
  });

  it('answers a deduplicated send with the id of the message the queue took for that id, the latest one', async () => {
    const { queues, fifo, send, advanceMillis } = queuesWithIds();
    const input = {
      QueueUrl: fifo,
      MessageBody: 'b',
      MessageGroupId: 'g',
      MessageDeduplicationId: 'd',
    };

    const first = await send(input);
    advanceMillis(6 * 60_000);
    const second = await send(input);
    advanceMillis(60_000);
    const duplicate = await send(input);

    expect([first, second, duplicate]).toMatchObject([
      { MessageId: 'm-1' },
      { MessageId: 'm-2' },
      { MessageId: 'm-2' },
    ]);
    expect(queues.messages(fifo).map((message) => message.messageId)).toEqual(['m-1', 'm-2']);
  });
});
