import { randomUUID } from 'node:crypto';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { PublishBatchCommand } from '@aws-sdk/client-sns';
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
} from '@aws-sdk/client-sqs';
import { findUpstream, type Upstream } from './findUpstream.js';

export type { Upstream } from './findUpstream.js';

import type { LocalClients } from './localClients.js';

/** A message of a local run, for one consumer; `direct` sends it to the queue whatever feeds it. */
export interface UpstreamMessage<TConsumer extends string> {
  readonly consumer: TConsumer;
  readonly body: string;
  readonly groupId?: string;
  readonly direct?: boolean;
}

type Route = { readonly queueUrl: string; readonly queueArn: string; readonly upstream: Upstream };
type Envelope = { readonly body: string; readonly groupId: string | undefined };

const TAP_WAIT_MILLIS = 15_000;

/**
 * Sends a local run's traffic the way its producers do: a message for a consumer fed by an SNS
 * topic is published to the topic, one for a consumer fed by an EventBridge rule is put on the
 * rule's bus, anything else is sent to the queue. A message sent again is an upstream delivery
 * retry: the envelope SNS or EventBridge delivered the first time, sent to the queue again as a
 * new SQS message — caught by a tap (a second subscription, a second rule target) on the same
 * upstream. `find` discovers each queue's upstream from the emulator (or AWS), as deployed;
 * `close` takes the taps away (a deployed stack is deleted cleanly only without them).
 *
 * @example
 * ```ts
 * const delivery = await UpstreamDelivery.find(clients, { ledger: { queueUrl, queueArn } });
 * await delivery.send([{ consumer: 'ledger', body: '{…}', groupId: 'acc-1' }]);
 * ```
 */
export class UpstreamDelivery<TConsumer extends string> {
  readonly #clients: LocalClients;
  readonly #routes: Record<TConsumer, Route>;
  readonly #envelopes = new Map<string, Envelope>();
  readonly #sent = new Set<string>();
  readonly #removeTaps: ReadonlyArray<() => Promise<void>>;

  private constructor(
    clients: LocalClients,
    routes: Record<TConsumer, Route>,
    removeTaps: ReadonlyArray<() => Promise<void>>,
  ) {
    this.#clients = clients;
    this.#routes = routes;
    this.#removeTaps = removeTaps;
  }

  /**
   * Finds what feeds each queue (an SNS subscription, a rule target, or nothing) and taps it.
   * A queue fed by both is taken as fed by its topic, unless `prefer` says `eventbridge`.
   */
  static async find<TConsumer extends string>(
    clients: LocalClients,
    queues: Record<TConsumer, { readonly queueUrl: string; readonly queueArn: string }>,
    prefer: 'sns' | 'eventbridge' = 'sns',
  ): Promise<UpstreamDelivery<TConsumer>> {
    const routes = {} as Record<TConsumer, Route>;
    const removeTaps: Array<() => Promise<void>> = [];
    for (const [consumer, queue] of Object.entries(queues) as Array<
      [TConsumer, { queueUrl: string; queueArn: string }]
    >) {
      const { upstream, removeTap } = await findUpstream(clients, queue.queueArn, prefer);
      routes[consumer] = { ...queue, upstream };
      removeTaps.push(removeTap);
    }
    return new UpstreamDelivery(clients, routes, removeTaps);
  }

  /** Takes the taps away: the tap subscriptions and rule targets, and the tap queues. */
  async close(): Promise<void> {
    for (const removeTap of this.#removeTaps) await removeTap();
  }

  /** What feeds a consumer's queue. */
  upstreamOf(consumer: TConsumer): Upstream {
    return this.#routes[consumer].upstream;
  }

  /**
   * Sends messages in order: a message seen before for its consumer is delivered again as the
   * upstream's retry would; the others are published, put or sent, ten a request.
   */
  async send(messages: ReadonlyArray<UpstreamMessage<TConsumer>>): Promise<void> {
    // The first time a message is seen it is published; every later time, in this call or an
    // earlier one, its upstream delivers it again.
    const fresh: Array<UpstreamMessage<TConsumer>> = [];
    const again: Array<UpstreamMessage<TConsumer>> = [];
    for (const message of messages) {
      (this.#sent.has(idOf(message)) ? again : fresh).push(message);
      this.#sent.add(idOf(message));
    }
    for (const consumer of Object.keys(this.#routes) as TConsumer[]) {
      const mine = fresh.filter((m) => m.consumer === consumer);
      await this.#publish(
        consumer,
        mine.filter((m) => !m.direct),
      );
      await this.#sendToQueue(
        consumer,
        mine.filter((m) => m.direct),
      );
    }
    for (const message of again) await this.redeliver(message);
  }

  /**
   * Delivers a sent message again as a new SQS message: the upstream's envelope of it (as SNS or
   * EventBridge retry a delivery, or as a DLQ redrive moves it), or its body for a direct one.
   */
  async redeliver(message: UpstreamMessage<TConsumer>): Promise<void> {
    await this.#sendToQueue(message.consumer, [await this.delivered(message)]);
  }

  /**
   * A sent message as its queue received it: the upstream's envelope and message group, or
   * the message itself for a queue fed by nothing else or a direct one.
   */
  async delivered(message: UpstreamMessage<TConsumer>): Promise<UpstreamMessage<TConsumer>> {
    const route = this.#routes[message.consumer];
    if (route.upstream.kind === 'sqs' || message.direct) return message;
    const envelope = await this.#envelopeOf(message, route.upstream.tapUrl);
    return { ...message, body: envelope.body, groupId: envelope.groupId ?? message.groupId };
  }

  async #publish(consumer: TConsumer, messages: ReadonlyArray<UpstreamMessage<TConsumer>>) {
    const upstream = this.#routes[consumer].upstream;
    if (upstream.kind === 'sqs') return this.#sendToQueue(consumer, messages);
    for (let i = 0; i < messages.length; i += 10) {
      const chunk = messages.slice(i, i + 10);
      const failed =
        upstream.kind === 'sns'
          ? await this.#publishToTopic(upstream.topicArn, chunk)
          : await this.#putOnBus(upstream, chunk);
      if (failed > 0)
        throw new Error(`the ${upstream.kind} upstream of ${consumer} refused ${failed} messages`);
    }
  }

  async #publishToTopic(topicArn: string, chunk: ReadonlyArray<UpstreamMessage<TConsumer>>) {
    const fifo = topicArn.endsWith('.fifo');
    const { Failed = [] } = await this.#clients.sns.send(
      new PublishBatchCommand({
        TopicArn: topicArn,
        PublishBatchRequestEntries: chunk.map((m, index) => ({
          Id: String(index),
          Message: m.body,
          ...(fifo ? { MessageGroupId: m.groupId, MessageDeduplicationId: randomUUID() } : {}),
        })),
      }),
    );
    return Failed.length;
  }

  async #putOnBus(
    upstream: Extract<Upstream, { kind: 'eventbridge' }>,
    chunk: ReadonlyArray<UpstreamMessage<TConsumer>>,
  ) {
    const { FailedEntryCount = 0 } = await this.#clients.events.send(
      new PutEventsCommand({
        Entries: chunk.map((m) => ({
          EventBusName: upstream.busName,
          Source: upstream.source,
          DetailType: upstream.detailType,
          Detail: m.body,
        })),
      }),
    );
    return FailedEntryCount;
  }

  async #sendToQueue(consumer: TConsumer, messages: ReadonlyArray<UpstreamMessage<TConsumer>>) {
    const { queueUrl } = this.#routes[consumer];
    const fifo = queueUrl.endsWith('.fifo');
    for (let i = 0; i < messages.length; i += 10) {
      const { Failed = [] } = await this.#clients.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: messages.slice(i, i + 10).map((m, index) => ({
            Id: String(index),
            MessageBody: m.body,
            ...(fifo ? { MessageGroupId: m.groupId, MessageDeduplicationId: randomUUID() } : {}),
          })),
        }),
      );
      if (Failed.length > 0)
        throw new Error(`SQS refused ${Failed.length} messages: ${Failed[0]?.Message}`);
    }
  }

  /** The envelope the tap caught for a message, reading the tap until it shows up. */
  async #envelopeOf(message: UpstreamMessage<TConsumer>, tapUrl: string): Promise<Envelope> {
    const deadline = Date.now() + TAP_WAIT_MILLIS;
    for (;;) {
      const envelope = this.#envelopes.get(idOf(message));
      if (envelope) return envelope;
      if (Date.now() > deadline) {
        throw new Error(`the ${message.consumer} upstream never delivered a message to its tap`);
      }
      await this.#readTap(message.consumer, tapUrl);
    }
  }

  async #readTap(consumer: TConsumer, tapUrl: string): Promise<void> {
    const { Messages = [] } = await this.#clients.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: tapUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        MessageSystemAttributeNames: ['MessageGroupId'],
      }),
    );
    for (const tapped of Messages) {
      const body = tapped.Body ?? '';
      this.#envelopes.set(idOf({ consumer, body: payloadOf(body) }), {
        body,
        groupId: tapped.Attributes?.MessageGroupId,
      });
    }
    if (Messages.length === 0) return;
    await this.#clients.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: tapUrl,
        Entries: Messages.map((m, index) => ({
          Id: String(index),
          ReceiptHandle: m.ReceiptHandle,
        })),
      }),
    );
  }
}

function idOf(message: { consumer: string; body: string }): string {
  return `${message.consumer}\n${message.body}`;
}

/**
 * The payload a delivered body carries: an SNS notification's `Message`, an EventBridge
 * event's `detail` as JSON, or the body itself.
 *
 * @example
 * ```ts
 * payloadOf('{"Type":"Notification","TopicArn":"…","MessageId":"m","Message":"{}"}'); // => '{}'
 * ```
 */
export function payloadOf(body: string): string {
  try {
    const value = JSON.parse(body) as Record<string, unknown>;
    if (value.Type === 'Notification' && typeof value.Message === 'string') return value.Message;
    if (typeof value['detail-type'] === 'string' && 'detail' in value) {
      return JSON.stringify(value.detail);
    }
  } catch {
    // not JSON: the body is the payload
  }
  return body;
}
