/**
 * `sqs-inbox/testing`: test your own handlers in milliseconds, without an emulator, against an
 * in-memory DynamoDB that behaves as DynamoDB does, with the records Lambda delivers from each
 * source. Nothing of it is loaded by the root entry.
 *
 * @module sqs-inbox/testing
 */

// The library's types this entry's declarations name, and the types those name in turn, so that
// a test can name them too and the API report has them all. Those that are values as well (the
// `as const` objects and InboxError) are exported as values: the root entry's own objects, from
// the same modules, which this entry loads anyway; the rest as types only.
export type { DynamoDBInboxStore } from '../aws/DynamoDBInboxStore.js';
export type { DynamoDBInboxStoreOptions } from '../aws/documentClientFor.js';
export type { BatchProcessor } from '../batch/createBatchProcessor.js';
export { InboxStatus, RecordStatus } from '../constants/values.js';
export type {
  InboxSpan,
  InboxTracer,
  SpanAttributeValue,
  SpanStart,
  TraceLink,
} from '../core/InboxTracer.js';
export type { InboxEntry } from '../core/inboxEntry.js';
export type { InboxLogger, ParsedMessage, RecordOutcome } from '../core/types.js';
export type { InboxEnvironmentConfig } from '../environment/inboxConfigFromEnvironment.js';
export { InboxError } from '../errors/InboxError.js';
export { type InboxRuntime, TimerPurpose } from '../runtime/InboxRuntime.js';
export {
  type EventBridgeEnvelope,
  type MessageEnvelope,
  MessageSource,
  type OutboxEnvelope,
  type S3Envelope,
  type S3ObjectEvent,
  type SnsEnvelope,
  type SnsMessageAttribute,
} from '../sources/MessageSource.js';
export { DynamoFault, type InjectedFault } from './dynamo/InjectedFaults.js';
export {
  copyOf,
  type DeliveryOptions,
  type EventBridgeRecordOptions,
  eventBridgeRecord,
  type FifoRecordOptions,
  fifoRecord,
  type LambdaContextOptions,
  lambdaContext,
  type OutboxRecordOptions,
  outboxRecord,
  type RedrivenCopyOptions,
  redeliveryOf,
  redrivenCopy,
  type S3ObjectNotice,
  type SnsRecordOptions,
  type SqsRecordOptions,
  s3Record,
  s3TestEventRecord,
  snsRecord,
  sqsEvent,
  sqsRecord,
  type TestMessageAttributes,
} from './events/index.js';
export type { BatchRun, CrashPoint, RecordRun } from './harness/BatchRun.js';
export { InboxTest } from './harness/InboxTest.js';
export type { InboxTestOptions, InboxTestProcessorOptions } from './harness/InboxTestOptions.js';
export { TestClock, type TestClockOptions } from './harness/TestClock.js';
export { InMemoryDynamoDB, type InMemoryDynamoDBOptions } from './InMemoryDynamoDB.js';
export { NotModelledError } from './NotModelledError.js';
export type { ChangedVisibility } from './sqs/InFlightMessages.js';
export { InMemoryQueues, type QueuedMessage } from './sqs/InMemoryQueues.js';
export type { TestKeyAttribute, TestTable } from './tableDefinitions.js';
export type { CloudFormationTemplate } from './templateTables.js';
