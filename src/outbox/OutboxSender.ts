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
  send(message: OutgoingMessage): Promise<void>;
}
