import { InboxError } from '../errors/InboxError.js';

/**
 * A test asked the in-memory DynamoDB or SQS (`sqs-inbox/testing`) for something it does not
 * model — an operation (`ListTables`, `ReceiveMessage`), a parameter (`IndexName` of `Query`) or
 * an expression feature — so it refuses rather than give an answer the service might not give.
 * `feature` names what to leave out; test that call against DynamoDB Local or an emulator instead.
 *
 * @example
 * ```ts
 * import { QueryCommand } from '@aws-sdk/lib-dynamodb';
 * import { expect } from 'vitest';
 * const byCustomer = new QueryCommand({ TableName: 'orders', IndexName: 'byCustomer',
 *   KeyConditionExpression: 'customerId = :c', ExpressionAttributeValues: { ':c': 'c-1' } });
 * await expect(dynamo.documentClient.send(byCustomer)).rejects.toThrow(NotModelledError);
 * ```
 * @public
 */
export class NotModelledError extends InboxError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'NotModelledError';
  /** The service's operation (`Query`, `ListTables`, `SendMessage`…). */
  readonly operation: string;
  /** What of it is not modelled: the operation itself, or its parameters named. */
  readonly feature: string;
  /** What the model does answer there (the operations, or the operation's parameters). */
  readonly modelled: readonly string[];
  /** The service modelled: `DynamoDB` or `SQS`. */
  readonly service: 'DynamoDB' | 'SQS';
  constructor(
    operation: string,
    feature: string,
    modelled: readonly string[],
    service: 'DynamoDB' | 'SQS' = 'DynamoDB',
  ) {
    const elsewhere = service === 'DynamoDB' ? 'DynamoDB Local or an emulator' : 'an emulator';
    super(
      `The in-memory ${service} does not model ${feature === operation ? operation : `${feature} of ${operation}`}; ` +
        `it models ${modelled.join(', ')}. Leave it out of the test, or test this call against ${elsewhere}.`,
    );
    this.service = service;
    this.operation = operation;
    this.feature = feature;
    this.modelled = modelled;
  }
}
