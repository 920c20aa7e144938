/**
 * What InMemoryQueues refuses of a `SendMessage` (src/testing/sqs/checkSendMessage.ts), sent
 * through its SQS client: the SDK's exception classes and SQS's words, where AWS documents them.
 */
import { InvalidMessageContents, type MessageAttributeValue } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { queuesWithIds, text } from './queuesWithIds.js';

describe('checkSendMessage, through InMemoryQueues.client', () => {
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
});
