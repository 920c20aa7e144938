export { createConsoleLogger } from './consoleLogger.js';
export {
  DEFAULT_CONCURRENCY,
  DEFAULT_TRANSACTION_ATTEMPTS,
  DEFAULT_TTL_SECONDS,
  InboxMetric,
  InboxStatus,
  TRANSACTION_LIMITS,
} from './constants.js';
export {
  type BatchProcessor,
  createBatchProcessor,
  processSqsBatch,
} from './createBatchProcessor.js';
export { DeadLetterAttribute, DeadLetterPublisher } from './DeadLetterPublisher.js';
export { DynamoDBInboxStore, type DynamoDBInboxStoreOptions } from './DynamoDBInboxStore.js';
export {
  BusinessConditionFailedError,
  DeadLetterSendError,
  InboxError,
  InvalidConfigurationError,
  KeyDerivationError,
  MalformedEventError,
  MessageParseError,
  PayloadMismatchError,
  PermanentError,
  type SchemaIssue,
  SchemaValidationError,
  TransactionLimit,
  TransactionLimitError,
  TransientReason,
  TransientStoreError,
} from './errors.js';
export type { CommitRequest, CommitResult, InboxStore } from './InboxStore.js';
export { inboxPk } from './inboxEntry.js';
export { type InboxMiddlewareOptions, inboxMiddleware } from './inboxMiddleware.js';
export {
  type TransactConditionCheckInput,
  type TransactDeleteInput,
  type TransactItem,
  TransactionBuilder,
  type TransactPutInput,
  type TransactUpdateInput,
} from './TransactionBuilder.js';
export {
  type InboxEntry,
  type InboxLogger,
  type InboxMessage,
  type InboxMetrics,
  type InboxOptions,
  type MessageHandler,
  type ParsedMessage,
  type RecordOutcome,
  RecordStatus,
} from './types.js';
