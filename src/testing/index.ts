/**
 * `sqs-inbox/testing`: test your own handlers in milliseconds, without an emulator, against an
 * in-memory DynamoDB that behaves as DynamoDB does. Nothing of it is loaded by the root entry.
 */

export { DynamoFault, type InjectedFault } from './dynamo/InjectedFaults.js';
export type { BatchRun, CrashPoint, RecordRun } from './harness/BatchRun.js';
export {
  InboxTest,
  type InboxTestOptions,
  type InboxTestProcessorOptions,
} from './harness/InboxTest.js';
export { TestClock } from './harness/TestClock.js';
export { InMemoryDynamoDB, type InMemoryDynamoDBOptions } from './InMemoryDynamoDB.js';
export { NotModelledError } from './NotModelledError.js';
export { InMemoryQueues, type QueuedMessage } from './sqs/InMemoryQueues.js';
export type { TestKeyAttribute, TestTable } from './tableDefinitions.js';
export type { CloudFormationTemplate } from './templateTables.js';
