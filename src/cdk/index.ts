/**
 * `sqs-inbox/cdk`: the AWS CDK constructs of sqs-inbox. Needs `aws-cdk-lib` and `constructs`
 * (peer dependencies) and `esbuild` to bundle the function locally.
 */

export { businessTableVariable, InboxEnvironment } from '../constants.js';
export { DEFAULT_BUSINESS_TABLE_ACTIONS, InboxConsumer } from './InboxConsumer.js';
export type { BusinessTableGrant, InboxConsumerProps } from './InboxConsumerProps.js';
export { InboxTable, type InboxTableProps } from './InboxTable.js';
