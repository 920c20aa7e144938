import type { IConstruct } from 'constructs';
import { MessageSource } from '../sources/MessageSource.js';
import { InboxValidationError } from './InboxValidationError.js';
import type { MessageKey } from './MessageKey.js';
import { QueueSource } from './QueueSource.js';

/**
 * The declared sources of an `InboxConsumer`, checked, and what the function is told of them.
 *
 * @example
 * ```ts
 * const { kinds }: ResolvedQueueSources = resolveQueueSources(consumer, [QueueSource.snsTopic(topic)], undefined);
 * ```
 */
export interface ResolvedQueueSources {
  readonly sources: readonly QueueSource[];
  /** `INBOX_SOURCES`: each kind once, in declaration order. */
  readonly kinds: readonly MessageSource[];
  /** `INBOX_KEY`, when the construct declares the key. */
  readonly keyVariable: string | undefined;
}

/**
 * Checks the `sources` and `key` props: no sources means direct producers, keyed by the
 * handler's `key`; a declared source without an upstream id (SNS raw delivery, direct
 * producers among other sources) needs a `key`.
 *
 * @example
 * ```ts
 * resolveQueueSources(consumer, [QueueSource.snsTopic(topic, { rawMessageDelivery: true })], undefined); // throws: needs key
 * ```
 */
export function resolveQueueSources(
  scope: IConstruct,
  sources: readonly QueueSource[] | undefined,
  key: MessageKey | undefined,
): ResolvedQueueSources {
  const fail = (message: string): never => {
    throw new InboxValidationError(scope, message);
  };
  if (sources !== undefined && sources.length === 0) {
    fail(
      'sources is empty; declare at least one, or leave it out for producers that send to the queue directly (QueueSource.direct()).',
    );
  }
  const declared = sources ?? [QueueSource.direct()];
  const kinds = [...new Set(declared.map((source) => source.kind))];
  if (key === undefined && kinds.includes(MessageSource.SnsRaw)) {
    fail(
      'SNS raw message delivery strips the SNS MessageId, so nothing upstream keys its messages. ' +
        "Declare the key: key: MessageKey.attribute('eventId') (a message attribute the " +
        "publisher sets), MessageKey.field('orderId') (a field of the payload), or " +
        'MessageKey.inHandler() when the function passes `key` itself. Or turn raw delivery off.',
    );
  }
  // Declared among other sources, direct producers need the key declared too; a consumer
  // without `sources` keeps the handler's `key`, as before sources existed.
  if (key === undefined && sources !== undefined && kinds.includes(MessageSource.Sqs)) {
    fail(
      'direct producers (QueueSource.direct()) send no upstream id to key their messages by. ' +
        "Declare the key: key: MessageKey.field('orderId') (a field of the payload), " +
        "MessageKey.attribute('eventId') (a message attribute the producer sets), or " +
        'MessageKey.inHandler() when the function passes `key` itself.',
    );
  }
  return { sources: declared, kinds, keyVariable: key?.environmentValue };
}
