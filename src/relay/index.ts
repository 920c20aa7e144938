/**
 * `sqs-inbox/relay`: the outbox relay, a Lambda handler for the outbox table's DynamoDB stream
 * that sends what `tx.publish` committed. Kept apart from `sqs-inbox` so that a consumer does
 * not load the SNS and EventBridge clients.
 *
 * @module sqs-inbox/relay
 */
export { AwsOutboxSender, type AwsOutboxSenderOptions } from '../aws/AwsOutboxSender.js';
export { OutboxDeadLetterPublisher } from '../aws/OutboxDeadLetterPublisher.js';
export { readStreamBatch, type StreamBatchInfo } from '../aws/readStreamBatch.js';
export {
  OUTBOX_DEAD_LETTER_KIND,
  type OutboxDeadLetter,
  type OutboxDeadLetterSink,
  type OutgoingMessageWithoutContent,
} from '../outbox/OutboxDeadLetter.js';
export type { OutboxSender, OutgoingTrace } from '../outbox/OutboxSender.js';
export {
  createOutboxRelay,
  type OutboxRelayDeadLetterSettings,
  type OutboxRelayOptions,
  type OutboxRelayProcessor,
} from './createOutboxRelay.js';
export { outboxRelayFromEnvironment } from './outboxRelayFromEnvironment.js';
export {
  type RedriveOutboxOptions,
  type RedriveOutcome,
  redriveOutbox,
} from './redriveOutbox.js';
export type { RelayOutcome } from './relayRecord.js';
