import {
  GetQueueUrlCommand,
  InvalidMessageContents,
  type MessageAttributeValue,
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

const MiB = 1_048_576;
const text = (StringValue: string): MessageAttributeValue => ({ DataType: 'String', StringValue });

/** A standard and a FIFO queue, and a send that answers the SDK's error instead of throwing. */
function queuesWithIds() {
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

  it('refuses more than ten message attributes, and an attribute without a type or of an unknown one (InvalidParameterValue)', async () => {
    const { send } = queuesWithIds();
    const eleven = Object.fromEntries(
      Array.from({ length: 11 }, (_, n) => [`a${n}`, text(String(n))]),
    );

    expect(await send({ MessageBody: 'b', MessageAttributes: eleven })).toMatchObject({
      name: 'InvalidParameterValue',
      message: 'Number of message attributes [11] exceeds the allowed maximum [10].',
    });
    const untyped = { tenant: { StringValue: 't-1' } as MessageAttributeValue };
    expect(await send({ MessageBody: 'b', MessageAttributes: untyped })).toMatchObject({
      name: 'InvalidParameterValue',
      message: "The message attribute 'tenant' must contain non-empty message attribute type.",
    });
    const unknownType = { tenant: { DataType: 'Text', StringValue: 't-1' } };
    expect(await send({ MessageBody: 'b', MessageAttributes: unknownType })).toMatchObject({
      name: 'InvalidParameterValue',
    });
    const ten = Object.fromEntries(Array.from({ length: 10 }, (_, n) => [`a${n}`, text('v')]));
    const custom = { tenant: { DataType: 'String.tenant-id', StringValue: 't-1' } };
    expect(await send({ MessageBody: 'b', MessageAttributes: ten })).not.toBeInstanceOf(Error);
    expect(await send({ MessageBody: 'b', MessageAttributes: custom })).not.toBeInstanceOf(Error);
  });

  it('refuses a body with a character outside SQS’s set (InvalidMessageContents), and takes tab, newline, return and characters past U+FFFF', async () => {
    const { queues, standard, send } = queuesWithIds();

    for (const refused of ['\u0000', 'a\u0008b', '\u000B', '\uFFFE', 'x\uD800y', '\uDFFF']) {
      const error = await send({ MessageBody: refused });
      expect(error).toBeInstanceOf(InvalidMessageContents);
    }
    expect(await send({ MessageBody: 'a\u0007' })).toMatchObject({
      message: expect.stringMatching(
        /^Invalid binary character '#x7' was found in the message body/,
      ),
    });
    const taken = await send({ MessageBody: '\t\n\r \uD7FF\uE000\uFFFD😀' });
    expect(taken).not.toBeInstanceOf(Error);
    expect(queues.messages(standard)).toHaveLength(1);
  });

  it('refuses a message group or deduplication id other than 1–128 alphanumerics and punctuation (InvalidParameterValue), on either queue', async () => {
    const { queues, fifo, send } = queuesWithIds();
    const ids = {
      QueueUrl: fifo,
      MessageBody: 'b',
      MessageGroupId: 'g',
      MessageDeduplicationId: 'd',
    };

    for (const MessageGroupId of ['g'.repeat(129), 'tenant 1', 'tenant-é', 'a\tb']) {
      expect(await send({ ...ids, MessageGroupId })).toMatchObject({
        name: 'InvalidParameterValue',
        message: `Value ${MessageGroupId} for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length.`,
      });
    }
    for (const MessageDeduplicationId of ['d'.repeat(129), 'pay 1', 'pay-é']) {
      expect(await send({ ...ids, MessageDeduplicationId })).toMatchObject({
        name: 'InvalidParameterValue',
        message: expect.stringContaining('parameter MessageDeduplicationId is invalid'),
      });
    }
    expect(await send({ MessageBody: 'b', MessageGroupId: 'tenant 1' })).toMatchObject({
      name: 'InvalidParameterValue',
    });
    const punctuation = `!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`;
    const longest = {
      MessageGroupId: punctuation.padEnd(128, 'g'),
      MessageDeduplicationId: 'd'.repeat(128),
    };
    expect(await send({ ...ids, ...longest })).not.toBeInstanceOf(Error);
    expect(queues.messages(fifo)).toMatchObject([{ groupId: longest.MessageGroupId }]);
  });

  it('refuses a string attribute value with a character outside SQS’s set (InvalidParameterValue), and takes what a body takes', async () => {
    const { queues, standard, send } = queuesWithIds();

    for (const value of ['\u0000', 'a\u0008b', '\uFFFE', 'x\uD800y']) {
      expect(await send({ MessageBody: 'b', MessageAttributes: { a: text(value) } })).toMatchObject(
        {
          name: 'InvalidParameterValue',
          message: expect.stringContaining("in the value of message attribute 'a'"),
        },
      );
    }
    const number = { DataType: 'Number', StringValue: '1\u0000' };
    expect(await send({ MessageBody: 'b', MessageAttributes: { n: number } })).toMatchObject({
      name: 'InvalidParameterValue',
    });
    const taken = await send({ MessageBody: 'b', MessageAttributes: { a: text('\t\n\r 😀') } });
    expect(taken).not.toBeInstanceOf(Error);
    expect(queues.messages(standard)).toHaveLength(1);
  });

  it('refuses an empty body (MissingParameter)', async () => {
    const { send } = queuesWithIds();

    expect(await send({ MessageBody: '' })).toMatchObject({ name: 'MissingParameter' });
  });

  it('refuses a deduplication id on a standard queue and a delay of its own on a FIFO queue (InvalidParameterValue); takes a group on a standard queue', async () => {
    const { queues, standard, fifo, send } = queuesWithIds();

    expect(await send({ MessageBody: 'b', MessageDeduplicationId: 'd' })).toMatchObject({
      name: 'InvalidParameterValue',
      message: expect.stringContaining('parameter MessageDeduplicationId is invalid'),
    });
    const delayed = { QueueUrl: fifo, MessageGroupId: 'g', MessageDeduplicationId: 'd' };
    expect(await send({ ...delayed, MessageBody: 'b', DelaySeconds: 5 })).toMatchObject({
      name: 'InvalidParameterValue',
      message: expect.stringContaining('parameter DelaySeconds is invalid'),
    });
    expect(await send({ MessageBody: 'b', DelaySeconds: 901 })).toMatchObject({
      name: 'InvalidParameterValue',
    });
    expect(
      await send({ MessageBody: 'b', DelaySeconds: 900, MessageGroupId: 'tenant-1' }),
    ).not.toBeInstanceOf(Error);
    expect(await send({ ...delayed, MessageBody: 'b', DelaySeconds: 0 })).not.toBeInstanceOf(Error);
    expect(queues.messages(standard)).toMatchObject([{ groupId: 'tenant-1' }]);
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
