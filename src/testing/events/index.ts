/**
 * The event factories of `sqs-inbox/testing`: SQS records as Lambda delivers them from each
 * source the library reads (a producer, SNS, EventBridge, S3, an outbox relay), the same message
 * again (a copy, a redelivery, a redriven copy), the event, and a Lambda context.
 */

export { copyOf } from './copyOf.js';
export type { DeliveryOptions } from './deliveredRecord.js';
export { type EventBridgeRecordOptions, eventBridgeRecord } from './eventBridgeRecord.js';
export type { TestMessageAttributes } from './lambdaAttributes.js';
export { type LambdaContextOptions, lambdaContext } from './lambdaContext.js';
export { type OutboxRecordOptions, outboxRecord } from './outboxRecord.js';
export { redeliveryOf } from './redeliveryOf.js';
export { type RedrivenCopyOptions, redrivenCopy } from './redrivenCopy.js';
export { type S3ObjectNotice, s3Record, s3TestEventRecord } from './s3Record.js';
export { type SnsRecordOptions, snsRecord } from './snsRecord.js';
export { sqsEvent } from './sqsEvent.js';
export {
  type FifoRecordOptions,
  fifoRecord,
  type SqsRecordOptions,
  sqsRecord,
} from './sqsRecord.js';
