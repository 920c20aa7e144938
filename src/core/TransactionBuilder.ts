import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { TRANSACTION_LIMITS, TransactionLimit } from '../constants.js';
import { describeType, TransactionClosedError, TransactionLimitError } from '../errors.js';
import { copyOperand } from './copyOperand.js';

/**
 * One element of lib-dynamodb's `TransactItems`: exactly one of Put, Update, Delete, ConditionCheck.
 *
 * @example
 * ```ts
 * const items: TransactItem[] = [{ Delete: { TableName: 't', Key: { pk: 'a' } } }];
 * ```
 */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
/**
 * lib-dynamodb's transactional Put input (`TableName`, `Item`, optional condition).
 *
 * @example
 * ```ts
 * const put: TransactPutInput = { TableName: 'orders', Item: { orderId: 'o-1' } };
 * ```
 */
export type TransactPutInput = NonNullable<TransactItem['Put']>;
/**
 * lib-dynamodb's transactional Update input (`TableName`, `Key`, `UpdateExpression`, …).
 *
 * @example
 * ```ts
 * const update: TransactUpdateInput = { TableName: 't', Key: { pk: 'a' }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } };
 * ```
 */
export type TransactUpdateInput = NonNullable<TransactItem['Update']>;
/**
 * lib-dynamodb's transactional Delete input (`TableName`, `Key`, optional condition).
 *
 * @example
 * ```ts
 * const del: TransactDeleteInput = { TableName: 'holds', Key: { holdId: 'h-1' } };
 * ```
 */
export type TransactDeleteInput = NonNullable<TransactItem['Delete']>;
/**
 * lib-dynamodb's ConditionCheck input (`TableName`, `Key`, `ConditionExpression`).
 *
 * @example
 * ```ts
 * const check: TransactConditionCheckInput = { TableName: 'accounts', Key: { accountId: 'a' }, ConditionExpression: 'attribute_exists(accountId)' };
 * ```
 */
export type TransactConditionCheckInput = NonNullable<TransactItem['ConditionCheck']>;

/**
 * Collects the business writes of one message. Everything added here is committed in the same
 * `TransactWriteItems` as the message's inbox entry: all of it happens exactly once, or none
 * of it. Inputs use lib-dynamodb's native values (no `{ S: … }` wrappers). Each call checks
 * the operation's shape and the 99-operation budget at once, so a bad operation fails inside
 * your handler with a {@link TransactionLimitError} that names it.
 *
 * @example
 * ```ts
 * tx.update({
 *   TableName: 'stock', Key: { sku: 'A-1' },
 *   UpdateExpression: 'ADD available :minus', ConditionExpression: 'available >= :q',
 *   ExpressionAttributeValues: { ':minus': -2, ':q': 2 },
 * });
 * tx.put({ TableName: 'reservations', Item: { orderId: 'o-9', sku: 'A-1', quantity: 2 } });
 * ```
 */
export class TransactionBuilder {
  readonly #items: TransactItem[] = [];
  #closedFor: string | undefined;

  /**
   * Refuses every later call: the processor closes a message's builder when its handler
   * settles, so an operation added late throws instead of silently missing the commit.
   */
  close(messageId: string): void {
    this.#closedFor = messageId;
  }

  /**
   * Adds a Put. Its `ConditionExpression`, if any, is evaluated inside the transaction. Like
   * every method here it keeps a copy: changing the item afterwards changes nothing.
   */
  put(input: TransactPutInput): this {
    requireRecord(input.Item, 'Item', 'Put', this.#items.length);
    return this.#add({ Put: input }, input.TableName);
  }

  /** Adds an Update. */
  update(input: TransactUpdateInput): this {
    requireRecord(input.Key, 'Key', 'Update', this.#items.length);
    requireString(input.UpdateExpression, 'UpdateExpression', 'Update', this.#items.length);
    return this.#add({ Update: input }, input.TableName);
  }

  /** Adds a Delete. */
  delete(input: TransactDeleteInput): this {
    requireRecord(input.Key, 'Key', 'Delete', this.#items.length);
    return this.#add({ Delete: input }, input.TableName);
  }

  /** Adds a ConditionCheck: the transaction commits only if the condition holds. */
  conditionCheck(input: TransactConditionCheckInput): this {
    requireRecord(input.Key, 'Key', 'ConditionCheck', this.#items.length);
    const index = this.#items.length;
    requireString(input.ConditionExpression, 'ConditionExpression', 'ConditionCheck', index);
    return this.#add({ ConditionCheck: input }, input.TableName);
  }

  /** The operations added so far, in order. */
  get operations(): readonly TransactItem[] {
    return this.#items;
  }

  #add(item: TransactItem, tableName: unknown): this {
    const type = Object.keys(item)[0] ?? 'operation';
    if (this.#closedFor !== undefined) throw new TransactionClosedError(this.#closedFor, type);
    requireString(tableName, 'TableName', type, this.#items.length);
    if (this.#items.length >= TRANSACTION_LIMITS.maxBusinessOperations) {
      throw new TransactionLimitError(
        TransactionLimit.OperationCount,
        `more than ${TRANSACTION_LIMITS.maxBusinessOperations} business operations in one ` +
          'message (DynamoDB allows 100 per transaction and one is the inbox entry); split the ' +
          'work across several messages.',
        this.#items.length + 1,
        TRANSACTION_LIMITS.maxBusinessOperations,
      );
    }
    this.#items.push(copyOperand(item));
    return this;
  }
}

function requireString(value: unknown, field: string, type: string, index: number): void {
  if (typeof value === 'string' && value.length > 0) return;
  throw invalidOperation(`${type} #${index} needs a non-empty string ${field}`, value);
}

function requireRecord(value: unknown, field: string, type: string, index: number): void {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    if (Object.keys(value).length > 0) return;
  }
  throw invalidOperation(`${type} #${index} needs a non-empty object ${field}`, value);
}

function invalidOperation(what: string, value: unknown): TransactionLimitError {
  return new TransactionLimitError(
    TransactionLimit.InvalidOperation,
    `${what}, got ${describeType(value)}. Pass lib-dynamodb inputs, e.g. { TableName, Key }.`,
    describeType(value),
    'a well-formed operation',
  );
}
