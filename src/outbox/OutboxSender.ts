import type { OutgoingMessage } from './OutgoingMessage.js';

/**
 * Sends one outgoing message to its destination. `AwsOutboxSender` is the implementation; the
 * interface keeps the relay's core free of SDK types, so a test or a simulation can give its own.
 * It throws `DestinationRefusedError` for a refusal no retry fixes and
 * `DestinationUnavailableError` for anything passing.
 *
 * @example
 * ```ts
 * const sender: OutboxSender = { send: async (message) => { sent.push(message.id); } };
 * ```
 * @public
 */
export interface OutboxSender {
  /**
   * Sends one message to `message.destination`, carrying `message.id` so that a downstream
   * inbox can key on it; resolves once the destination has it. A `DestinationRefusedError`
   * makes the relay dead-letter the message and go on; anything else makes it report the
   * stream record failed, for Lambda to retry.
   */
  send(message: OutgoingMessage): Promise<void>;
}
