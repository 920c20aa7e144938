import type { OutgoingMessage } from './OutgoingMessage.js';

/**
 * Sends one outgoing message to its destination. `AwsOutboxSender` is the implementation; the
 * interface keeps the relay's core free of SDK types, so a test or a simulation can give its own.
 * It throws `DestinationRefusedError` for a refusal no retry fixes and
 * `DestinationUnavailableError` for anything passing.
 *
 * @example
 * ```ts
 * const sent: string[] = [];
 * const sender: OutboxSender = { send: async (message) => { sent.push(message.id); } };
 * ```
 * @public
 */
export interface OutboxSender {
  /**
   * Sends one message to `message.destination`, carrying `message.id` so that a downstream
   * inbox can key on it; resolves once the destination has it. A `DestinationRefusedError`
   * makes the relay dead-letter the message and go on; anything else makes it report the
   * stream record failed, for Lambda to retry. `trace`, when given, is the context to carry.
   */
  send(message: OutgoingMessage, trace?: OutgoingTrace): Promise<void>;
}

/**
 * The trace context the relay sends a message with: the publishing record's, or the relay's
 * own span's when a tracer is given to the relay.
 *
 * @example
 * ```ts
 * declare const sender: OutboxSender;
 * import type { OutgoingMessage } from 'sqs-inbox/types';
 * declare const outgoing: OutgoingMessage;
 * // ---cut---
 * await sender.send(outgoing, { traceparent: '00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01' });
 * ```
 * @public
 */
export interface OutgoingTrace {
  /** A W3C `traceparent`; the sender carries it as its destination can (see `TraceCarrier`). */
  readonly traceparent: string;
}
