import { createHash, randomUUID } from 'node:crypto';
import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import { InvalidConfigurationError } from '../../errors/configurationErrors.js';
import { NotModelledError } from '../NotModelledError.js';
import { type WireRequest, wireAnswer, wireBody, wireOperation } from '../wireRequest.js';

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

/** How long a FIFO queue remembers a deduplication id. */
const DEDUPLICATION_MILLIS = 5 * 60_000;
const ACCOUNT = '000000000000';
const REGION = 'us-east-1';

interface SendInput {
  readonly QueueUrl?: string;
  readonly MessageBody?: string;
  readonly MessageAttributes?: Record<string, { StringValue?: string; BinaryValue?: string }>;
  readonly MessageGroupId?: string;
  readonly MessageDeduplicationId?: string;
}

/**
 * Queues in memory that take what the library sends — dead letters, a redrive's copies — for a
 * test to read. `client` is a real `SQSClient` whose `SendMessage` requests reach these queues
 * (the SDK's middleware, body checksum and exceptions included); a FIFO queue needs a message
 * group and deduplicates by id for five minutes, as SQS does; a queue that was not created
 * answers `QueueDoesNotExist`; any other operation raises `NotModelledError`.
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
  readonly #queues = new Map<string, QueuedMessage[]>();
  readonly #seen = new Map<string, number>();
  #client: SQSClient | undefined;

  constructor(options: { readonly now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** An `SQSClient` over these queues, built on first use. */
  get client(): SQSClient {
    this.#client ??= new SQSClient({
      region: REGION,
      credentials: { accessKeyId: 'in-memory', secretAccessKey: 'in-memory' },
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
   * expect(queues.messages(dlqUrl)).toHaveLength(1);
   * ```
   */
  messages(queueUrl?: string): readonly QueuedMessage[] {
    if (queueUrl === undefined) return [...this.#queues.values()].flat();
    return this.#queues.get(queueUrl) ?? [];
  }

  async #handle(request: WireRequest) {
    const action = wireOperation(request.headers);
    if (action !== 'SendMessage') throw new NotModelledError(action, action, ['SendMessage']);
    const input = wireBody(request) as SendInput;
    const queue = this.#queues.get(input.QueueUrl ?? '');
    if (queue === undefined)
      return sqsError(
        'QueueDoesNotExist',
        'AWS.SimpleQueueService.NonExistentQueue',
        'The specified queue does not exist.',
      );
    const fifo = (input.QueueUrl ?? '').endsWith('.fifo');
    if (fifo && !input.MessageGroupId)
      return sqsError(
        'MissingParameter',
        'MissingParameter',
        'The request must contain the parameter MessageGroupId.',
      );
    if (fifo && !input.MessageDeduplicationId)
      return sqsError(
        'InvalidParameterValue',
        'InvalidParameterValue',
        'The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
      );
    const body = input.MessageBody ?? '';
    const messageId = this.#take(queue, input, body, fifo);
    const md5 = createHash('md5').update(body, 'utf8').digest('hex');
    return wireAnswer(200, { MessageId: messageId, MD5OfMessageBody: md5 });
  }

  /** Keeps the message, unless a FIFO queue saw its deduplication id in the last five minutes. */
  #take(queue: QueuedMessage[], input: SendInput, body: string, fifo: boolean): string {
    const nowMillis = this.#now();
    const seenKey = `${input.QueueUrl}\u0000${input.MessageDeduplicationId}`;
    const seen = this.#seen.get(seenKey);
    if (fifo && seen !== undefined && nowMillis - seen < DEDUPLICATION_MILLIS)
      return (
        queue.find((message) => message.deduplicationId === input.MessageDeduplicationId)
          ?.messageId ?? randomUUID()
      );
    if (fifo) this.#seen.set(seenKey, nowMillis);
    const messageId = randomUUID();
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
function sqsError(shape: string, code: string, message: string) {
  return wireAnswer(
    400,
    { __type: `com.amazonaws.sqs#${shape}`, message },
    { 'x-amzn-query-error': `${code};Sender` },
  );
}
