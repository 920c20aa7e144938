/**
 * `sqs-inbox/errors`: every error the library throws or reports, in one place to import from,
 * with the vocabularies their fields use (`TransientReason`, `TransactionLimit`,
 * `LeaseOperation`); the five a handler throws or catches are also exported by `sqs-inbox`.
 * `InboxError` is the base; the classes live in `errors/` by when they arise: configuration and event shape
 * (`configurationErrors.ts`), a message that can never succeed (`messageErrors.ts`, all
 * `PermanentError`s), processing (`processingErrors.ts`), steps and their lease
 * (`stepErrors.ts`), the outbox (`outboxErrors.ts`), and a stored item of a newer format
 * (`FormatVersionError.ts`). `errorText.ts` (internal) renders values for their messages
 * without quoting message content.
 *
 * @module sqs-inbox/errors
 */

export { TransactionLimit, TransientReason } from './constants/values.js';
export {
  EnvironmentError,
  InvalidConfigurationError,
  MalformedEventError,
} from './errors/configurationErrors.js';
export { FormatVersionError } from './errors/FormatVersionError.js';
export { InboxError } from './errors/InboxError.js';
export {
  EnvelopeMismatchError,
  KeyDerivationError,
  MessageParseError,
  PayloadMismatchError,
  PermanentError,
  type SchemaIssue,
  SchemaValidationError,
  TransactionLimitError,
} from './errors/messageErrors.js';
export {
  DestinationRefusedError,
  DestinationUnavailableError,
  OutboxRecordError,
  OutgoingMessageError,
  StreamBatchIncompleteError,
} from './errors/outboxErrors.js';
export {
  BusinessConditionFailedError,
  DeadLetterSendError,
  InboxTableSchemaError,
  RecordDeadlineError,
  TransactionClosedError,
  TransientStoreError,
} from './errors/processingErrors.js';
export {
  LeaseHeldError,
  LeaseLostError,
  LeaseOperation,
  StepNameError,
  StepResultError,
} from './errors/stepErrors.js';
