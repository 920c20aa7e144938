/**
 * The in-memory queues (src/testing/sqs) against MiniStack: each SendMessage the model takes or
 * refuses, sent to both. Where MiniStack refuses, both answer the same error; where MiniStack
 * takes what AWS documents a refusal for, the case says so and the model follows AWS
 * (src/testing/sqs/checkSendMessage.ts).
 */
import {
  type MessageAttributeValue,
  SendMessageCommand,
  type SendMessageCommandInput,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryQueues } from '../../src/testing/index.js';
import { testAws } from '../harness/aws.js';

const aws = testAws();
afterAll(() => aws.cleanup());
const MiB = 1_048_576;
const text = (StringValue: string): MessageAttributeValue => ({ DataType: 'String', StringValue });
const attributes = (count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, n) => [`a${n}`, text(String(n))]));
const fifoIds = { MessageGroupId: 'g', MessageDeduplicationId: 'd-1' };

/** How MiniStack answers a case: as the model does, or by taking what AWS refuses. */
const MiniStack = { Same: 'same', SameWording: 'same wording', TakesIt: 'takes it' } as const;
type MiniStack = (typeof MiniStack)[keyof typeof MiniStack];

interface Case {
  readonly name: string;
  readonly fifo?: boolean;
  readonly input: Omit<SendMessageCommandInput, 'QueueUrl'>;
  /** The error both answer; none when both take the message. */
  readonly refusal?: string;
  readonly ministack: MiniStack;
}

const CASES: readonly Case[] = [
  {
    name: 'an empty body',
    input: { MessageBody: '' },
    refusal: 'MissingParameter',
    ministack: MiniStack.SameWording,
  },
  {
    name: 'a body with a character outside SQS’s set',
    input: { MessageBody: 'a\u0000b' },
    refusal: 'InvalidMessageContents',
    ministack: MiniStack.Same,
  },
  {
    name: 'a body over 1 MiB',
    input: { MessageBody: 'x'.repeat(MiB + 1) },
    refusal: 'InvalidParameterValue',
    ministack: MiniStack.SameWording,
  },
  {
    name: 'a body of 1 MiB with an attribute (SQS counts both)',
    input: { MessageBody: 'x'.repeat(MiB), MessageAttributes: { a: text('v') } },
    refusal: 'InvalidParameterValue',
    ministack: MiniStack.TakesIt,
  },
  {
    name: 'eleven message attributes',
    input: { MessageBody: 'b', MessageAttributes: attributes(11) },
    refusal: 'InvalidParameterValue',
    ministack: MiniStack.TakesIt,
  },
  {
    name: 'an attribute without a DataType',
    input: {
      MessageBody: 'b',
      MessageAttributes: { a: { StringValue: 'v' } as MessageAttributeValue },
    },
    refusal: 'InvalidParameterValue',
    ministack: MiniStack.TakesIt,
  },
  {
    name: 'a deduplication id on a standard queue',
    input: { MessageBody: 'b', MessageDeduplicationId: 'd-1' },
    refusal: 'InvalidParameterValue',
    ministack: MiniStack.TakesIt,
  },
  {
    name: 'a FIFO message with a delay of its own',
    fifo: true,
    input: { MessageBody: 'b', ...fifoIds, DelaySeconds: 5 },
    refusal: 'InvalidParameterValue',
    ministack: MiniStack.SameWording,
  },
  {
    name: 'a FIFO message without a group',
    fifo: true,
    input: { MessageBody: 'b', MessageDeduplicationId: 'd-1' },
    refusal: 'MissingParameter',
    ministack: MiniStack.SameWording,
  },
  {
    name: 'a FIFO message without a deduplication id',
    fifo: true,
    input: { MessageBody: 'b', MessageGroupId: 'g' },
    refusal: 'InvalidParameterValue',
    ministack: MiniStack.Same,
  },
  {
    name: 'a message group of 129 characters',
    fifo: true,
    input: { MessageBody: 'b', ...fifoIds, MessageGroupId: 'g'.repeat(129) },
    refusal: 'InvalidParameterValue',
    ministack: MiniStack.TakesIt,
  },
  {
    name: 'a message group with a space',
    fifo: true,
    input: { MessageBody: 'b', ...fifoIds, MessageGroupId: 'tenant 1' },
    refusal: 'InvalidParameterValue',
    ministack: MiniStack.TakesIt,
  },
  {
    name: 'a fair queue’s message group with a character past ASCII',
    input: { MessageBody: 'b', MessageGroupId: 'tenant-é' },
    refusal: 'InvalidParameterValue',
    ministack: MiniStack.TakesIt,
  },
  {
    name: 'a deduplication id of 129 characters',
    fifo: true,
    input: { MessageBody: 'b', ...fifoIds, MessageDeduplicationId: 'd'.repeat(129) },
    refusal: 'InvalidParameterValue',
    ministack: MiniStack.TakesIt,
  },
  {
    name: 'a deduplication id with a character past ASCII',
    fifo: true,
    input: { MessageBody: 'b', ...fifoIds, MessageDeduplicationId: 'pay-é' },
    refusal: 'InvalidParameterValue',
    ministack: MiniStack.TakesIt,
  },
  {
    name: 'an attribute value with a character outside SQS’s set',
    input: { MessageBody: 'b', MessageAttributes: { a: text('a\u0000b') } },
    refusal: 'InvalidParameterValue',
    ministack: MiniStack.TakesIt,
  },
  {
    name: 'a message group and a deduplication id of 128 characters, punctuation included',
    fifo: true,
    input: {
      MessageBody: 'b',
      MessageGroupId: `!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~${'g'.repeat(96)}`,
      MessageDeduplicationId: 'd'.repeat(128),
    },
    ministack: MiniStack.Same,
  },
  {
    name: 'an attribute value of tab, newline, return and a character past U+FFFF',
    input: { MessageBody: 'b', MessageAttributes: { a: text('\t\n\r😀') } },
    ministack: MiniStack.Same,
  },
  {
    name: 'ten message attributes',
    input: { MessageBody: 'b', MessageAttributes: attributes(10) },
    ministack: MiniStack.Same,
  },
  {
    name: 'a body of tab, newline, return and a character past U+FFFF',
    input: { MessageBody: '\t\n\r😀' },
    ministack: MiniStack.Same,
  },
  {
    name: 'a message group on a standard queue (fair queues)',
    input: { MessageBody: 'b', MessageGroupId: 'tenant-1' },
    ministack: MiniStack.Same,
  },
  {
    name: 'a FIFO message with a delay of 0',
    fifo: true,
    input: { MessageBody: 'b', ...fifoIds, DelaySeconds: 0 },
    ministack: MiniStack.Same,
  },
];

type Answer = { readonly refusal?: string; readonly message?: string };

async function answerOf(
  client: SQSClient,
  QueueUrl: string,
  input: Case['input'],
): Promise<Answer> {
  try {
    await client.send(new SendMessageCommand({ QueueUrl, ...input }));
    return {};
  } catch (error) {
    const { name, message } = error as Error;
    return { refusal: name, message };
  }
}

describe('InMemoryQueues SendMessage against MiniStack', () => {
  const memory = new InMemoryQueues();
  const urls = { memory: { standard: '', fifo: '' }, ministack: { standard: '', fifo: '' } };
  beforeAll(async () => {
    urls.memory = {
      standard: memory.createQueue('conform'),
      fifo: memory.createQueue('conform.fifo'),
    };
    const standard = await aws.createQueue(aws.uniqueName('conform'));
    const fifo = await aws.createQueue(`${aws.uniqueName('conform')}.fifo`);
    urls.ministack = { standard: standard.url, fifo: fifo.url };
  });

  for (const sent of CASES) {
    const verb = sent.refusal === undefined ? 'takes' : `refuses (${sent.refusal})`;
    const where =
      sent.ministack === MiniStack.TakesIt
        ? '; MiniStack takes it, AWS does not'
        : ', as MiniStack does';
    it(`${verb} ${sent.name}${where}`, async () => {
      const queue = sent.fifo ? 'fifo' : 'standard';
      const model = await answerOf(memory.client, urls.memory[queue], sent.input);
      const emulator = await answerOf(aws.sqs, urls.ministack[queue], sent.input);

      expect(model.refusal).toBe(sent.refusal);
      if (sent.ministack === MiniStack.TakesIt) expect(emulator).toEqual({});
      else expect(emulator.refusal).toBe(model.refusal);
      if (sent.ministack === MiniStack.SameWording) expect(emulator.message).toBe(model.message);
    });
  }
});
