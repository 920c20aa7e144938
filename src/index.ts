/**
 * `sqs-inbox`: the transactional inbox for SQS → Lambda consumers. The constructs are in
 * `sqs-inbox/cdk`.
 */
export { DeadLetterPublisher } from './aws/DeadLetterPublisher.js';
export { DynamoDBInboxStore, type DynamoDBInboxStoreOptions } from './aws/DynamoDBInboxStore.js';
export {
  type BatchProcessor,
  createBatchProcessor,
  processSqsBatch,
} from './batch/createBatchProcessor.js';
export {
  businessTableVariable,
  CONSUMER_NAME_PATTERN,
  DEAD_LETTER_ATTRIBUTE_PREFIX,
  DEFAULT_CONCURRENCY,
  DEFAULT_OUTBOX_RETENTION_SECONDS,
  DEFAULT_TRANSACTION_ATTEMPTS,
  DEFAULT_TTL_SECONDS,
  DeadLetterAttribute,
  DestinationKind,
  destinationVariable,
  INBOX_ENVIRONMENT_PREFIX,
  InboxAttribute,
  InboxEnvironment,
  InboxMetric,
  InboxStatus,
  LEASE_LIMITS,
  OUTBOX_LIMITS,
  OUTBOX_RETENTION_RANGE,
  OutboxAttribute,
  OutboxMessageIdField,
  Precheck,
  RecordStatus,
  SDK_DEFAULT_MAX_SOCKETS,
  STEP_LIMITS,
  TRANSACTION_LIMITS,
  TransactionLimit,
  TransientReason,
} from './constants.js';
export { createConsoleLogger } from './core/consoleLogger.js';
export type { DeadLetterNeeds, DeadLetterSink, KeyAttributes } from './core/DeadLetterSink.js';
export type {
  ClaimRequest,
  ClaimResult,
  CommitRequest,
  CommitResult,
  InboxStore,
  JournaledStep,
  LeaseToken,
  MemberVerdict,
  PreparedCommit,
} from './core/InboxStore.js';
export { type InboxEntry, inboxPk } from './core/inboxEntry.js';
export { keyHash, type LoggedKey } from './core/loggedKey.js';
export { redriveUnsafeMessageIdKey } from './core/redriveUnsafeMessageIdKey.js';
export {
  type PublishContext,
  type TransactConditionCheckInput,
  type TransactDeleteInput,
  type TransactItem,
  TransactionBuilder,
  type TransactPutInput,
  type TransactUpdateInput,
} from './core/TransactionBuilder.js';
export type {
  InboxLogger,
  InboxMessage,
  InboxMetrics,
  InboxOptions,
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
  DeadLetterSendError,
  DestinationRefusedError,
  DestinationUnavailableError,
  EnvelopeMismatchError,
  EnvironmentError,
  InboxError,
  InboxTableSchemaError,
  InvalidConfigurationError,
  KeyDerivationError,
  LeaseHeldError,
  LeaseLostError,
  LeaseOperation,
  MalformedEventError,
  MessageParseError,
  OutboxRecordError,
  OutgoingMessageError,
  PayloadMismatchError,
  PermanentError,
  RecordDeadlineError,
  type SchemaIssue,
  SchemaValidationError,
  StepNameError,
  StepResultError,
  TransactionClosedError,
  TransactionLimitError,
  TransientStoreError,
} from './errors.js';
export { type Destination, parseDestination } from './outbox/Destination.js';
export type { OutgoingMessage, PublishInput } from './outbox/OutgoingMessage.js';
export { outboxMessageId } from './outbox/outboxMessageId.js';
export { type InboxRuntime, systemRuntime, TimerPurpose } from './runtime/InboxRuntime.js';
export {
  type EventBridgeEnvelope,
  type MessageEnvelope,
  MessageSource,
  type S3Envelope,
  type S3ObjectEvent,
  type SnsEnvelope,
  type SnsMessageAttribute,
} from './sources/MessageSource.js';
export type { StepContext, StepFunction } from './steps/StepFunction.js';
export { stepIdempotencyKey } from './steps/stepIdempotencyKey.js';
