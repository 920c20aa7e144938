/**
 * `sqs-inbox/types`: the types a handler meets but rarely names — the operations it gives the
 * transaction builder (`tx.put`, `tx.update`, …), what `tx.publish` takes, the envelopes a
 * declared source arrives in, the groups of the processor's options, and the inbox entry as
 * tooling reads it. Types only: importing this entry loads no code.
 *
 * @module sqs-inbox/types
 */
export type { ConsoleLogLevel } from './core/consoleLogger.js';
export type {
  InboxSpan,
  InboxTracer,
  SpanAttributeValue,
  SpanStart,
  TraceLink,
} from './core/InboxTracer.js';
export type { InboxEntry } from './core/inboxEntry.js';
export type {
  DeadLetterSettings,
  ObservabilitySettings,
  PerformanceSettings,
  ProcessorSettings,
  ReliabilitySettings,
  RetrySettings,
} from './core/ProcessorSettings.js';
export type {
  TransactConditionCheckInput,
  TransactDeleteInput,
  TransactItem,
  TransactPutInput,
  TransactUpdateInput,
} from './core/TransactionBuilder.js';
export type { OutgoingMessage, PublishInput } from './outbox/OutgoingMessage.js';
export type {
  EventBridgeEnvelope,
  MessageEnvelope,
  OutboxEnvelope,
  S3Envelope,
  S3ObjectEvent,
  SnsEnvelope,
  SnsMessageAttribute,
} from './sources/MessageSource.js';
