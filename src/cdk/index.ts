/**
 * `sqs-inbox/cdk`: the AWS CDK constructs of sqs-inbox. Needs `aws-cdk-lib` and `constructs`
 * (peer dependencies) and `esbuild` to bundle the function locally. `MessageSource` (a queue
 * source's kind) is the one `sqs-inbox` exports, re-exported so that a CDK app loads no SDK
 * module; the environment contract's names are in `sqs-inbox/constants`.
 *
 * @module sqs-inbox/cdk
 */
export { MessageSource } from '../sources/MessageSource.js';

export type { InboxAlarms } from './createInboxMonitoring.js';
export type { OutboxAlarms } from './createOutboxMonitoring.js';
export { DEFAULT_BUSINESS_TABLE_ACTIONS, InboxConsumer } from './InboxConsumer.js';
export type {
  BusinessTableGrant,
  InboxConsumerProps,
  InboxDeadLetterProps,
  InboxEventSourceProps,
  InboxMonitoringProps,
  InboxOutboxProps,
  InboxQueueProps,
} from './InboxConsumerProps.js';
export type { InboxFunctionProps } from './InboxFunctionProps.js';
export type { InboxRetryProps } from './InboxRetryProps.js';
export { InboxTable, type InboxTableProps } from './InboxTable.js';
export { InboxValidationError } from './InboxValidationError.js';
export { MessageKey } from './MessageKey.js';
export { OutboxPipe, type OutboxPipeAlarms, type OutboxPipeProps } from './OutboxPipe.js';
export { OutboxRelay } from './OutboxRelay.js';
export type { OutboxDestination, OutboxRelayProps } from './OutboxRelayProps.js';
export { OutboxTable, type OutboxTableProps } from './OutboxTable.js';
export {
  type EventBridgeSourceOptions,
  type EventPatternSourceOptions,
  QueueSource,
  type QueueSourceContext,
  type S3BucketSourceOptions,
  type SnsTopicSourceOptions,
} from './QueueSource.js';
