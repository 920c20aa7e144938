import { randomUUID } from 'node:crypto';
import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSMessageAttribute, SQSRecord } from 'aws-lambda';
import { queueUrlOfArn } from '../../aws/queueUrlOfArn.js';
import { sqsSendInput } from '../../aws/sqsSendInput.js';
import { TraceCarrier } from '../../constants/values.js';
import { InvalidConfigurationError } from '../../errors.js';
import { toOutgoingMessage } from '../../outbox/OutgoingMessage.js';
import { outboxMessageId } from '../../outbox/outboxMessageId.js';
import {
  checkQueueArn,
  type DeliveryOptions,
  defaultQueueArn,
  deliveredRecord,
} from './deliveredRecord.js';

/**
 * Options of {@link outboxRecord}: what the upstream handler published (`tx.publish`), the
 * trace context it committed under, and how SQS delivered the relay's message.
 *
 * @example
 * ```ts
 * import { outboxMessageId } from 'sqs-inbox/constants';
 * const options: OutboxRecordOptions = { outboxId: outboxMessageId('ledger', 'pay-1', { name: 'credited' }) };
 * ```
 * @public
 */
export interface OutboxRecordOptions extends Omit<DeliveryOptions, 'traceHeader'> {
  /**
   * The outbox id, the `outbox` source's default key (as `outbox:<id>`): give the one the
   * upstream consumer publishes (`outboxMessageId(consumer, key, { name })`,
   * `sqs-inbox/constants`); default a random id of the same shape (64 hex characters).
   */
  readonly outboxId?: string;
  /**
   * The `groupId` given to `tx.publish`. With one and no `queueArn`, the queue is FIFO
   * (`…:orders.fifo`); on a standard queue the relay passes it on (fair queues).
   */
  readonly groupId?: string;
  /** The `attributes` given to `tx.publish` (at most 9, none named `outbox.*`). */
  readonly attributes?: Readonly<Record<string, string>>;
  /** The W3C `traceparent` the upstream record span committed under: sent as `AWSTraceHeader`. */
  readonly traceParent?: string;
}

/**
 * A record of a queue the library's outbox relay sends to: a message a handler published with
 * `tx.publish({ destination: <this queue>, body, groupId, attributes })`, checked as
 * `tx.publish` checks it, and delivered as the relay sends it — the body's text, the message's
 * attributes and its outbox id as the `outbox.messageId` attribute, on a FIFO queue its group
 * and the outbox id as deduplication id. The `outbox` source keys it by that id.
 *
 * @example
 * ```ts
 * import { outboxRecord, sqsEvent } from 'sqs-inbox/testing';
 * const record = outboxRecord({ paymentId: 'pay-1', amountCents: 1250 }, { outboxId: 'a1b2' });
 * await processor.process(sqsEvent(record)); // sources: ['outbox']; the key is 'outbox:a1b2'
 * ```
 * @public
 */
export function outboxRecord(body: unknown, options: OutboxRecordOptions = {}): SQSRecord {
  const queueArn = checkQueueArn(
    options.queueArn ?? defaultQueueArn(options.groupId !== undefined),
  );
  const id = options.outboxId ?? outboxMessageId('upstream', randomUUID(), { index: 0 });
  const published = {
    destination: queueUrlOf(queueArn),
    body,
    ...(options.groupId === undefined ? {} : { groupId: options.groupId }),
    ...(options.attributes === undefined ? {} : { attributes: options.attributes }),
  };
  const sent = sqsSendInput(toOutgoingMessage(published, 0, id), options.traceParent);
  const traceHeader = sent.MessageSystemAttributes?.[TraceCarrier.AwsTraceHeader]?.StringValue;
  const fifo = sent.MessageDeduplicationId !== undefined;
  return deliveredRecord(
    {
      body: sent.MessageBody ?? '',
      messageAttributes: asReceived(sent.MessageAttributes ?? {}),
      ...(fifo
        ? {
            fifo: {
              groupId: sent.MessageGroupId ?? '',
              deduplicationId: sent.MessageDeduplicationId,
            },
          }
        : { fairGroupId: sent.MessageGroupId }),
    },
    { ...options, queueArn, ...(traceHeader === undefined ? {} : { traceHeader }) },
  );
}

/** The queue URL of a queue ARN, as a handler names the destination (the library's derivation). */
function queueUrlOf(queueArn: string): string {
  const url = queueUrlOfArn(queueArn);
  if (url === undefined)
    throw new InvalidConfigurationError(
      'queueArn',
      queueArn,
      'an SQS queue ARN in an AWS partition',
    );
  return url;
}

/** SQS's attributes of a `SendMessage`, as Lambda delivers them. */
function asReceived(
  sent: Record<string, MessageAttributeValue>,
): Record<string, SQSMessageAttribute> {
  return Object.fromEntries(
    Object.entries(sent).map(([name, value]) => [
      name,
      { dataType: value.DataType ?? 'String', stringValue: value.StringValue ?? '' },
    ]),
  );
}
