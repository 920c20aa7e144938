import type { SendMessageCommandInput } from '@aws-sdk/client-sqs';
import { DestinationKind, TraceCarrier } from '../constants/values.js';
import { toXRayHeader } from '../core/traceContext.js';
import { SENT_ATTRIBUTE_DATA_TYPE, sentAttributes } from '../outbox/messageSize.js';
import type { OutgoingMessage } from '../outbox/OutgoingMessage.js';

/**
 * The message attributes the relay sends with a message to SQS or SNS: its own and its outbox
 * id, each a `String`, and `extra` ones (SNS's `traceparent`). Built by the function
 * `tx.publish` counts the size with, so the check and the send agree.
 *
 * @example
 * ```ts
 * stringAttributes(message)['outbox.messageId']; // => { DataType: 'String', StringValue: message.id }
 * ```
 */
export function stringAttributes(
  message: OutgoingMessage,
  extra: Record<string, string> = {},
): Record<string, { DataType: string; StringValue: string }> {
  const attributes: Record<string, { DataType: string; StringValue: string }> = {};
  for (const [name, value] of Object.entries({ ...sentAttributes(message), ...extra })) {
    attributes[name] = { DataType: SENT_ATTRIBUTE_DATA_TYPE, StringValue: value };
  }
  return attributes;
}

/**
 * What the relay's `SendMessage` of a message to an SQS queue says: the body, the attributes,
 * the trace context as `AWSTraceHeader`, the group when there is one and, on a FIFO queue, the
 * outbox id as deduplication id. The testing kit's `outboxRecord` delivers the same.
 *
 * @example
 * ```ts
 * await sqsClient.send(new SendMessageCommand(sqsSendInput(message, traceparent)));
 * ```
 */
export function sqsSendInput(
  message: OutgoingMessage,
  traceparent?: string,
): SendMessageCommandInput {
  const fifo = message.kind === DestinationKind.SqsFifoQueue;
  return {
    QueueUrl: message.destination,
    MessageBody: message.body,
    MessageAttributes: stringAttributes(message),
    ...sqsTrace(traceparent),
    ...(message.groupId === undefined ? {} : { MessageGroupId: message.groupId }),
    ...(fifo ? { MessageDeduplicationId: message.id } : {}),
  };
}

// SQS carries the context as the `AWSTraceHeader` system attribute, which counts against neither
// the ten-attribute quota nor the size limit (docs.aws.amazon.com/xray/latest/devguide/
// xray-services-sqs.html; SendMessage `MessageSystemAttributes`), so every message has room.
function sqsTrace(traceparent: string | undefined) {
  const header = traceparent === undefined ? undefined : toXRayHeader(traceparent);
  if (header === undefined) return {};
  return {
    MessageSystemAttributes: {
      [TraceCarrier.AwsTraceHeader]: { DataType: 'String', StringValue: header },
    },
  };
}
