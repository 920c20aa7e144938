import { createHash, randomUUID } from 'node:crypto';
import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { queueUrlOfArn } from '../../aws/queueUrlOfArn.js';
import { InvalidConfigurationError } from '../../errors/configurationErrors.js';
import { NotModelledError } from '../NotModelledError.js';
import { intercepted } from '../requestInterceptors.js';
import { type WireRequest, wireAnswer, wireBody, wireOperation } from '../wireRequest.js';
import {
  changeVisibility,
  changeVisibilityBatch,
  type VisibilityBatchInput,
  type VisibilityInput,
} from './changeVisibility.js';
import { checkSendMessage, type SendInput, type SqsRefusal } from './checkSendMessage.js';
import { type ChangedVisibility, InFlightMessages } from './InFlightMessages.js';

/**
 * A message a queue of {@link InMemoryQueues} took: what was sent, as SQS keeps it.
 *
 * @example
 * ```ts
 * const [dead] = queues.messages(dlqUrl); dead?.attributes['inbox.error'] // => 'PermanentError'
 * ```
 * @public
 */
export interface QueuedMessage {
  /** The id SQS gave it. */
  readonly messageId: string;
  /** The URL of the queue it was sent to. */
  readonly queueUrl: string;
  /** The message body, as sent. */
  readonly body: string;
  /** Its message attributes' values (`StringValue`, or a `BinaryValue` as base64). */
  readonly attributes: Readonly<Record<string, string>>;
  /** A FIFO queue's message group. */
  readonly groupId?: string;
  /** A FIFO queue's deduplication id. */
  readonly deduplicationId?: string;
  /** When it was sent, by the queues' clock (epoch milliseconds). */
  readonly sentAtMillis: number;
}

/** A request to the queues, as their interceptors see it (the testing harness's). */
export interface QueueRequest {
  /** The SQS operation (`SendMessage`…). */
  readonly operation: string;
}

/** How long a FIFO queue remembers a deduplication id. */
const DEDUPLICATION_MILLIS = 5 * 60_000;
const ACCOUNT = '000000000000';
const REGION = 'us-east-1';
const OPERATIONS = ['SendMessage', 'ChangeMessageVisibility', 'ChangeMessageVisibilityBatch'];
const NO_QUEUE: SqsRefusal = {
  shape: 'QueueDoesNotExist',
  code: 'AWS.SimpleQueueService.NonExistentQueue',
  message: 'The specified queue does not exist.',
};

/** A deduplication id a FIFO queue took: when, and the id of the message it answered with. */
interface SeenDeduplicationId {
  readonly atMillis: number;
  readonly messageId: string;
}

/**
 * Queues in memory that take what the library sends — dead letters, a redrive's copies — for a
 * test to read. `client` is a real `SQSClient` whose `SendMessage` requests reach these queues
 * (the SDK's middleware, body checksum and exceptions included), refused as SQS refuses them: a
 * body and its attributes over 1 MiB together, more than ten attributes, an attribute without a
 * type, a body or attribute value character outside SQS's set, a group or deduplication id
 * other than 1–128 alphanumerics and punctuation, a FIFO queue's message without a group or a
 * deduplication id or with its own delay, a standard queue's message with a deduplication id
 * (see `checkSendMessage`). A FIFO queue deduplicates by id for five minutes, answering with the
 * id of the message it took; a queue that was not created answers `QueueDoesNotExist`.
 * `ChangeMessageVisibility` and `ChangeMessageVisibilityBatch` (a processor's `retry`) apply to
 * the records {@link InMemoryQueues.deliver | delivered} from a queue, as SQS applies them (see
 * `InFlightMessages`): a timeout of 0–43,200 whole seconds, a handle the queue issued
 * (`ReceiptHandleIsInvalid` otherwise) and not superseded by a later receive of its message
 * (`InvalidParameterValue`), a batch of 1–10 entries with distinct ids; `visibilityChanges()`
 * lists what they applied. Any other operation or parameter raises `NotModelledError`.
 *
 * @example
 * ```ts
 * const queues = new InMemoryQueues();
 * const dlqUrl = queues.createQueue('ledger-dlq');
 * const options = { deadLetter: { queueUrl: dlqUrl, maxReceiveCount: 5, client: queues.client } };
 * ```
 * @public
 */
export class InMemoryQueues {
  readonly #now: () => number;
  readonly #messageIds: () => string;
  readonly #queues = new Map<string, QueuedMessage[]>();
  readonly #seen = new Map<string, SeenDeduplicationId>();
  readonly #inFlight = new InFlightMessages();
  #client: SQSClient | undefined;

  /**
   * `now`: the clock of the messages' `sentAtMillis` and of FIFO deduplication (epoch
   * milliseconds; default `Date.now`). `messageIds`: the id each message taken gets (default
   * `randomUUID`), for a test that wants them fixed.
   */
  constructor(options: { readonly now?: () => number; readonly messageIds?: () => string } = {}) {
    this.#now = options.now ?? Date.now;
    this.#messageIds = options.messageIds ?? randomUUID;
  }

  /** An `SQSClient` over these queues, built on first use. */
  get client(): SQSClient {
    this.#client ??= new SQSClient({
      region: REGION,
      credentials: { accessKeyId: 'in-memory', secretAccessKey: 'in-memory' },
      // Every request reaches these queues, whatever its queue URL's region: without this the SDK
      // warns on each call naming a queue outside the client's region (a record's own queue).
      useQueueUrlAsEndpoint: false,
      requestHandler: { handle: (request: WireRequest) => this.#handle(request) },
    } as SQSClientConfig);
    return this.#client;
  }

  /**
   * Creates a queue (FIFO when the name ends in `.fifo`) and returns its URL.
   *
   * @example
   * ```ts
   * queues.createQueue('payments-dlq.fifo') // => 'https://sqs.us-east-1.amazonaws.com/000000000000/payments-dlq.fifo'
   * ```
   */
  createQueue(name: string): string {
    if (!/^[\w-]{1,75}(\.fifo)?$/.test(name))
      throw new InvalidConfigurationError('name', name, 'a queue name: letters, digits, - and _');
    const url = `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${name}`;
    if (!this.#queues.has(url)) this.#queues.set(url, []);
    return url;
  }

  /**
   * The messages a queue took, oldest first (all queues' when no URL is given).
   *
   * @example
   * ```ts
   * import { expect } from 'vitest';
   * expect(queues.messages(dlqUrl)).toHaveLength(1);
   * ```
   */
  messages(queueUrl?: string): readonly QueuedMessage[] {
    if (queueUrl === undefined) return [...this.#queues.values()].flat();
    return this.#queues.get(queueUrl) ?? [];
  }

  /**
   * Takes records as Lambda received them from their queues (each record's `eventSourceARN`),
   * now by the queues' clock: the queue exists from then on, and each record's receipt handle
   * is its message's latest, so a visibility change names it (an earlier handle of the message
   * is refused from then on, as SQS refuses a handle received again since). `InboxTest.run`
   * delivers each batch it runs; call it before handing records to a processor yourself. A
   * record without an SQS queue ARN is left out. The queue's own visibility timeout is not
   * modelled: a message stays in flight until a change or a later delivery.
   *
   * @example
   * ```ts
   * queues.deliver(event.Records);
   * await processor.process(event); // its retry's visibility changes reach these queues
   * ```
   */
  deliver(records: readonly SQSRecord[]): void {
    const nowMillis = this.#now();
    for (const record of records) {
      const queueUrl = queueUrlOfArn(record.eventSourceARN);
      if (queueUrl === undefined) continue;
      if (!this.#queues.has(queueUrl)) this.#queues.set(queueUrl, []);
      this.#inFlight.receive(queueUrl, record.messageId, record.receiptHandle, nowMillis);
    }
  }

  /**
   * The visibility changes the queues applied, oldest first (a refused one is not listed).
   *
   * @example
   * ```ts
   * import { expect } from 'vitest';
   * expect(queues.visibilityChanges().map((change) => change.visibilityTimeoutSeconds)).toEqual([62]);
   * ```
   */
  visibilityChanges(): readonly ChangedVisibility[] {
    return this.#inFlight.changes();
  }

  async #handle(request: WireRequest) {
    const action = wireOperation(request.headers);
    // A dead invocation's request (the harness's interceptor) gets no answer, as a crashed
    // Lambda's does: what it would have sent never reaches a queue.
    const held = intercepted<QueueRequest>(this, { operation: action });
    if (held !== undefined) return held as Promise<never>;
    if (!OPERATIONS.includes(action)) throw new NotModelledError(action, action, OPERATIONS, 'SQS');
    const input = wireBody(request) as { readonly QueueUrl?: string };
    if (!this.#queues.has(input.QueueUrl ?? '')) return sqsError(NO_QUEUE);
    if (action === 'SendMessage') return this.#send(input as SendInput);
    const nowMillis = this.#now();
    if (action === 'ChangeMessageVisibility') {
      const refusal = changeVisibility(this.#inFlight, input as VisibilityInput, nowMillis);
      return refusal === undefined ? wireAnswer(200, {}) : sqsError(refusal);
    }
    const answer = changeVisibilityBatch(this.#inFlight, input as VisibilityBatchInput, nowMillis);
    return 'shape' in answer ? sqsError(answer) : wireAnswer(200, answer);
  }

  #send(input: SendInput) {
    const queue = this.#queues.get(input.QueueUrl ?? '') ?? [];
    const fifo = (input.QueueUrl ?? '').endsWith('.fifo');
    const refusal = checkSendMessage(input, fifo);
    if (refusal !== undefined) return sqsError(refusal);
    const body = input.MessageBody ?? '';
    const messageId = this.#take(queue, input, body, fifo);
    const md5 = createHash('md5').update(body, 'utf8').digest('hex');
    return wireAnswer(200, { MessageId: messageId, MD5OfMessageBody: md5 });
  }

  /**
   * Keeps the message, unless a FIFO queue took its deduplication id in the last five minutes:
   * then it answers with the id of the message it took then, and keeps nothing.
   */
  #take(queue: QueuedMessage[], input: SendInput, body: string, fifo: boolean): string {
    const nowMillis = this.#now();
    const seenKey = `${input.QueueUrl}\u0000${input.MessageDeduplicationId}`;
    const seen = this.#seen.get(seenKey);
    if (fifo && seen !== undefined && nowMillis - seen.atMillis < DEDUPLICATION_MILLIS)
      return seen.messageId;
    const messageId = this.#messageIds();
    if (fifo) this.#seen.set(seenKey, { atMillis: nowMillis, messageId });
    queue.push({
      messageId,
      queueUrl: input.QueueUrl ?? '',
      body,
      attributes: Object.fromEntries(
        Object.entries(input.MessageAttributes ?? {}).map(([name, value]) => [
          name,
          value.StringValue ?? value.BinaryValue ?? '',
        ]),
      ),
      ...(input.MessageGroupId ? { groupId: input.MessageGroupId } : {}),
      ...(input.MessageDeduplicationId ? { deduplicationId: input.MessageDeduplicationId } : {}),
      sentAtMillis: nowMillis,
    });
    return messageId;
  }
}

/** SQS's JSON error: the shape in `__type`, the query-compatible code in a header. */
function sqsError({ shape, code, message }: SqsRefusal) {
  return wireAnswer(
    400,
    { __type: `com.amazonaws.sqs#${shape}`, message },
    { 'x-amzn-query-error': `${code};Sender` },
  );
}
