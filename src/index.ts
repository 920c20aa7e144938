/**
 * `sqs-inbox`: the transactional inbox for SQS → Lambda consumers — what a handler author
 * needs. The rest is behind subpaths that say who it is for: `sqs-inbox/errors` (every error),
 * `sqs-inbox/types` (operation inputs, envelopes), `sqs-inbox/constants` (wire names and
 * limits, for tooling and dashboards), `sqs-inbox/relay` (the outbox relay) and
 * `sqs-inbox/cdk` (the constructs).
 *
 * @module sqs-inbox
 */
export {
  DynamoDBInboxStore,
  type DynamoDBInboxStoreOptions,
} from './aws/DynamoDBInboxStore.js';
export {
  type BatchProcessor,
  createBatchProcessor,
  processSqsBatch,
} from './batch/createBatchProcessor.js';
export type { InboxOptions } from './batch/InboxOptions.js';
export {
  DestinationKind,
  Precheck,
  RecordStatus,
  TransientReason,
} from './constants/values.js';
export { createConsoleLogger } from './core/consoleLogger.js';
export { redriveUnsafeMessageIdKey } from './core/redriveUnsafeMessageIdKey.js';
export type { StepContext, StepFunction } from './core/StepFunction.js';
export { TransactionBuilder } from './core/TransactionBuilder.js';
export type {
  InboxLogger,
  InboxMessage,
  InboxMetrics,
  MessageHandler,
  ParsedMessage,
  RecordOutcome,
} from './core/types.js';
export {
  type InboxEnvironmentConfig,
  type InboxEnvironmentOptions,
  inboxConfigFromEnvironment,
} from './environment/inboxConfigFromEnvironment.js';
export {
  BusinessConditionFailedError,
  InboxError,
  LeaseLostError,
  LeaseOperation,
  PermanentError,
  TransientStoreError,
} from './errors.js';
export { type Destination, parseDestination } from './outbox/Destination.js';
export { type InboxRuntime, TimerPurpose } from './runtime/InboxRuntime.js';
export { MessageSource } from './sources/MessageSource.js';
