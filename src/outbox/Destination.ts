import { DestinationKind } from '../constants/values.js';

/**
 * A destination address, parsed: what kind of target it is, and the address the relay sends
 * to (the queue URL, the topic ARN, the bus ARN).
 *
 * @example
 * ```ts
 * const kind = parseDestination('https://sqs.eu-west-1.amazonaws.com/123456789012/credits.fifo')?.kind;
 * // => 'sqs-fifo'
 * ```
 * @public
 */
export interface Destination {
  /** Which service receives the message: a queue (FIFO or not), a topic or an event bus. */
  readonly kind: DestinationKind;
  /** The queue URL, the topic ARN or the event bus's name or ARN, as given. */
  readonly address: string;
}

// An SQS queue URL: any host (AWS, an emulator), then /<account>/<queue name>.
const SQS_QUEUE_URL = /^https?:\/\/[^/\s]+\/\d{12}\/[A-Za-z0-9_-]{1,75}(\.fifo)?$/;
const SNS_TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,251}(\.fifo)?$/;
const EVENT_BUS_ARN = /^arn:aws[a-z-]*:events:[a-z0-9-]+:\d{12}:event-bus\/[A-Za-z0-9._/-]{1,256}$/;

/**
 * The rule for a destination address, in words, for error messages.
 *
 * @example
 * ```ts
 * throw new Error(`destination must be ${DESTINATION_RULE}`);
 * ```
 */
export const DESTINATION_RULE =
  'an SQS queue URL (https://sqs.<region>.amazonaws.com/<account>/<name>), an SNS topic ARN ' +
  '(arn:aws:sns:…) or an EventBridge event bus ARN (arn:aws:events:…:event-bus/<name>)';

/**
 * Tells what a destination address names, or `undefined` when it is none of
 * `DESTINATION_RULE`.
 *
 * @example
 * ```ts
 * parseDestination('arn:aws:sns:eu-west-1:123456789012:credits'); // { kind: 'sns', address: … }
 * ```
 * @public
 */
export function parseDestination(address: unknown): Destination | undefined {
  if (typeof address !== 'string') return undefined;
  const sqs = SQS_QUEUE_URL.exec(address);
  if (sqs) {
    const kind = sqs[1] ? DestinationKind.SqsFifoQueue : DestinationKind.SqsQueue;
    return { kind, address };
  }
  const sns = SNS_TOPIC_ARN.exec(address);
  if (sns) {
    const kind = sns[1] ? DestinationKind.SnsFifoTopic : DestinationKind.SnsTopic;
    return { kind, address };
  }
  if (EVENT_BUS_ARN.test(address)) return { kind: DestinationKind.EventBus, address };
  return undefined;
}

/**
 * Whether a kind of destination keeps the order of a group (and so needs a `groupId`).
 *
 * @example
 * ```ts
 * isFifo(DestinationKind.SnsFifoTopic); // => true
 * ```
 */
export function isFifo(kind: DestinationKind): boolean {
  return kind === DestinationKind.SqsFifoQueue || kind === DestinationKind.SnsFifoTopic;
}
