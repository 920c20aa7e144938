import {
  DECLARED_KEY_RULE,
  type DeclaredKey,
  formatDeclaredKey,
  parseDeclaredKey,
} from '../sources/declaredKey.js';

import { InboxValidationError } from './InboxValidationError.js';
/**
 * Where an `InboxConsumer`'s dedup key comes from, when the sources alone do not say: SNS raw
 * delivery and direct producers carry no upstream id. The construct passes a declared key to
 * the function (`INBOX_KEY`), whose `inboxConfigFromEnvironment().options.key` reads it.
 *
 * @example
 * ```ts
 * import type { ITopic } from 'aws-cdk-lib/aws-sns';
 * declare const orders: ITopic;
 * // ---cut---
 * new InboxConsumer(stack, 'Stock', { consumer: 'stock', function: { entry: 'src/stock.ts' },
 *   sources: [QueueSource.snsTopic(orders, { rawMessageDelivery: true })],
 *   key: MessageKey.attribute('eventId') });
 * ```
 * @public
 */
export class MessageKey {
  /** A message attribute the publisher sets (an SQS one, or an SNS one the notification carries). */
  static attribute(name: string): MessageKey {
    return new MessageKey({ from: 'attribute', name });
  }

  /** A field of the validated payload, a string or a safe integer; a dotted path reaches into objects. */
  static field(path: string): MessageKey {
    return new MessageKey({ from: 'field', path });
  }

  /** The function passes its own `key` option to the processor. */
  static inHandler(): MessageKey {
    return new MessageKey(undefined);
  }

  /** The value of `INBOX_KEY`, or undefined when the handler passes `key` itself. */
  readonly environmentValue: string | undefined;

  private constructor(declared: DeclaredKey | undefined) {
    this.environmentValue = declared === undefined ? undefined : formatDeclaredKey(declared);
    if (
      this.environmentValue !== undefined &&
      parseDeclaredKey(this.environmentValue) === undefined
    ) {
      throw new InboxValidationError(
        undefined,
        `MessageKey ${JSON.stringify(this.environmentValue)} is not ${DECLARED_KEY_RULE}.`,
      );
    }
  }
}
