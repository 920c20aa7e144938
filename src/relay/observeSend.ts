import { DestinationKind, SpanAttribute } from '../constants/values.js';
import type { InboxSpan, InboxTracer } from '../core/InboxTracer.js';
import { parseTraceparent } from '../core/traceContext.js';
import type { InboxLogger } from '../core/types.js';
import { recordedErrorName } from '../errors/errorText.js';
import type { OutgoingTrace } from '../outbox/OutboxSender.js';
import type { OutgoingMessage } from '../outbox/OutgoingMessage.js';

/** What watching a send needs of the relay's dependencies. */
interface Watch {
  readonly logger: InboxLogger;
  readonly tracer?: InboxTracer | undefined;
  readonly now: () => number;
}

/** What sending one message ended with: sent, dead-lettered, or an error to retry the record. */
export type SendResult = undefined | 'deadLettered' | { readonly error: unknown };

/** Where an outbox item came from, as it says. */
export interface ItemOrigin {
  readonly origin?: { readonly consumer: string; readonly keyHash: string };
  readonly traceparent?: string;
}

const MESSAGING_SYSTEM: Partial<Record<DestinationKind, string>> = {
  [DestinationKind.SqsQueue]: 'aws_sqs',
  [DestinationKind.SqsFifoQueue]: 'aws_sqs',
  [DestinationKind.SnsTopic]: 'aws_sns',
  [DestinationKind.SnsFifoTopic]: 'aws_sns',
};

/**
 * Sends one message watched: with a tracer, inside a PRODUCER span `send <destination>` linked
 * to the publishing record's span (the context its outbox item stored), whose own context is
 * sent on; without, the stored context is sent on as it is. A message sent or dead-lettered
 * gets one INFO outcome line with the publishing key's hash; one that failed is retried with
 * its record, whose WARN line says so.
 *
 * @example
 * ```ts
 * const result = await observeSend(message, read, deps, (trace) => sendOne(message, record, deps, trace));
 * ```
 */
export async function observeSend(
  message: OutgoingMessage,
  item: ItemOrigin,
  deps: Watch,
  send: (trace: OutgoingTrace | undefined) => Promise<SendResult>,
): Promise<SendResult> {
  const startMillis = deps.now();
  const span = startSendSpan(message, item, deps);
  const traceparent = span?.traceparent() ?? item.traceparent;
  const run = () => send(traceparent === undefined ? undefined : { traceparent });
  const result = span === undefined ? await run() : await span.withActive(run);
  const outcome =
    result === undefined ? 'relayed' : result === 'deadLettered' ? 'deadLettered' : 'failed';
  if (span !== undefined) {
    span.setAttributes({ [SpanAttribute.Outcome]: outcome });
    if (typeof result === 'object') span.recordError(recordedErrorName(result.error));
    span.end();
  }
  if (outcome === 'failed') return result;
  deps.logger.info('outbox message outcome', {
    outcome,
    messageId: message.id,
    destination: message.destination,
    ...(item.origin === undefined
      ? {}
      : { consumer: item.origin.consumer, keyHash: item.origin.keyHash }),
    durationMs: deps.now() - startMillis,
  });
  return result;
}

function startSendSpan(
  message: OutgoingMessage,
  item: ItemOrigin,
  deps: Watch,
): InboxSpan | undefined {
  if (deps.tracer === undefined) return undefined;
  const destination = message.destination.split(/[/:]/).at(-1) ?? message.destination;
  const link = parseTraceparent(item.traceparent);
  const system = MESSAGING_SYSTEM[message.kind];
  return deps.tracer.startSpan({
    name: `send ${destination}`,
    kind: 'producer',
    links: link === undefined ? [] : [link],
    attributes: {
      ...(system === undefined ? {} : { 'messaging.system': system }),
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'send',
      'messaging.destination.name': destination,
      [SpanAttribute.OutboxMessageId]: message.id,
      ...(item.origin === undefined
        ? {}
        : {
            [SpanAttribute.Consumer]: item.origin.consumer,
            [SpanAttribute.KeyHash]: item.origin.keyHash,
          }),
    },
  });
}
