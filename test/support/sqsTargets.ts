import { randomUUID } from 'node:crypto';
import {
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { inject } from 'vitest';
import { Kernel } from '../../tools/sim/kernel/Kernel.js';
import { Prng } from '../../tools/sim/kernel/Prng.js';
import { type Caller, CrashPoint, Network } from '../../tools/sim/network/Network.js';
import { SimQueue } from '../../tools/sim/sqs/SimQueue.js';
import { simSqsClient } from '../../tools/sim/sqs/SimSqsClient.js';
import { testAws } from '../harness/aws.js';
import { calmFaults } from './calmFaults.js';

/** A message as a receive gives it to the tests. */
export interface ReceivedMessage {
  readonly body: string;
  readonly receiptHandle: string;
}

/**
 * One SQS to run the conformance suite on: its own clock (real time on the emulator, simulated
 * time in the model), queues, and a client whose `send` takes the visibility commands.
 */
export interface SqsConnection {
  /** A new queue with this visibility timeout (FIFO when `fifo`): its URL. */
  createQueue(options: { fifo: boolean; visibilityTimeoutSeconds: number }): Promise<string>;
  /** Sends each body (into group `groupId` on a FIFO queue). */
  send(queueUrl: string, bodies: readonly string[], groupId?: string): Promise<void>;
  /** Receives what is visible now, up to 10 messages, without waiting. */
  receive(queueUrl: string): Promise<ReceivedMessage[]>;
  delete(queueUrl: string, receiptHandle: string): Promise<void>;
  /** The client the library's processor would send its visibility changes through. */
  readonly sqs: Pick<SQSClient, 'send'>;
  sleep(millis: number): Promise<void>;
  nowMillis(): number;
  close(): Promise<void>;
}

/** An SQS the suite runs against. */
export interface SqsTarget {
  readonly name: string;
  readonly connect: () => SqsConnection;
}

/**
 * The targets of the SQS conformance suite: the project's emulator (MiniStack) through the SDK,
 * in real time, and the simulation's queues — sends, receives and deletes as its event source
 * mapping makes them, visibility changes through the simulation's SQS client and network (no
 * faults) — in simulated time.
 */
export function sqsTargets(): SqsTarget[] {
  const backend = /SQS: ([^;]+)/.exec(inject('aws').backend)?.[1] ?? 'emulator';
  return [
    { name: backend, connect: emulatorConnection },
    { name: 'SimQueue', connect: simulatedConnection },
  ];
}

function emulatorConnection(): SqsConnection {
  const aws = testAws();
  const { sqs } = aws;
  return {
    createQueue: async ({ fifo, visibilityTimeoutSeconds }) =>
      (
        await aws.createQueue(aws.uniqueName('visibility') + (fifo ? '.fifo' : ''), {
          VisibilityTimeout: String(visibilityTimeoutSeconds),
        })
      ).url,
    send: async (QueueUrl, bodies, groupId) => {
      for (const MessageBody of bodies) {
        const fifo = groupId === undefined ? {} : { MessageDeduplicationId: randomUUID() };
        await sqs.send(
          new SendMessageCommand({ QueueUrl, MessageBody, MessageGroupId: groupId, ...fifo }),
        );
      }
    },
    receive: async (QueueUrl) => {
      const receive = new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 });
      const { Messages = [] } = await sqs.send(receive);
      return Messages.map((m) => ({ body: m.Body ?? '', receiptHandle: m.ReceiptHandle ?? '' }));
    },
    delete: async (QueueUrl, ReceiptHandle) => {
      await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle }));
    },
    sqs,
    sleep: (millis) => new Promise((resolve) => setTimeout(resolve, millis)),
    nowMillis: () => Date.now(),
    close: () => aws.cleanup(),
  };
}

const CALM = calmFaults({ untilMillis: 0 });

function simulatedConnection(): SqsConnection {
  const random = new Prng(34);
  const kernel = new Kernel(random.derive('kernel'), false);
  const network = new Network(kernel, random.derive('network'), CALM);
  const queues: SimQueue[] = [];
  const client = simSqsClient(queues, network, conformanceCaller(), () => kernel.nowMillis);
  /** Runs the world until `promise` settles: the time its requests take passes, simulated. */
  const drive = async <T>(promise: Promise<T>): Promise<T> => {
    let settled = false;
    const watched = promise.then(
      () => (settled = true),
      () => (settled = true),
    );
    await kernel.run(() => settled, { maxMillis: kernel.nowMillis + 60_000, maxSteps: 1e6 });
    await watched;
    return promise;
  };
  const queueAt = (url: string) => queues.find((queue) => queue.url === url) as SimQueue;
  return {
    createQueue: async ({ fifo, visibilityTimeoutSeconds }) => {
      const name = `visibility-${queues.length + 1}${fifo ? '.fifo' : ''}`;
      const visibilityTimeoutMillis = visibilityTimeoutSeconds * 1_000;
      const queue = new SimQueue({ name, fifo, visibilityTimeoutMillis, random });
      queues.push(queue);
      return queue.url;
    },
    send: async (url, bodies, groupId) => {
      for (const body of bodies) {
        queueAt(url).send({ body, groupId, deduplicationId: body }, kernel.nowMillis);
      }
    },
    receive: async (url) =>
      queueAt(url)
        .receive(10, kernel.nowMillis)
        .map((m) => ({ body: m.body, receiptHandle: m.receiptHandle ?? '' })),
    delete: async (url, handle) => queueAt(url).delete(handle, false),
    sqs: { send: (command: never) => drive(client.send(command)) } as Pick<SQSClient, 'send'>,
    sleep: (millis) => drive(kernel.sleep('conformance', millis)),
    nowMillis: () => kernel.nowMillis,
    close: async () => {},
  };
}

function conformanceCaller(): Caller {
  return {
    actor: 'conformance',
    slow: false,
    invocationId: undefined,
    request: () => ({ noteFault: () => {} }),
    beforeSend: () => CrashPoint.None,
  };
}
