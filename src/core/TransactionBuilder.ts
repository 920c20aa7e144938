import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { TRANSACTION_LIMITS, TransactionLimit } from '../constants/values.js';
import { describeType } from '../errors/errorText.js';
import { OutgoingMessageError } from '../errors/outboxErrors.js';
import { TransactionClosedError, TransactionLimitError } from '../errors.js';
import {
  type OutgoingMessage,
  type PublishInput,
  toOutgoingMessage,
} from '../outbox/OutgoingMessage.js';
import { outboxMessageId } from '../outbox/outboxMessageId.js';
import { planOutboxItems } from '../outbox/planOutboxItems.js';
import { copyOperand } from './copyOperand.js';

/**
 * One element of lib-dynamodb's `TransactItems`: exactly one of Put, Update, Delete, ConditionCheck.
 *
 * @example
 * ```ts
 * const items: TransactItem[] = [{ Delete: { TableName: 't', Key: { pk: 'a' } } }];
 * ```
 * @public
 */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
/**
 * lib-dynamodb's transactional Put input (`TableName`, `Item`, optional condition).
 *
 * @example
 * ```ts
 * const put: TransactPutInput = { TableName: 'orders', Item: { orderId: 'o-1' } };
 * ```
 * @public
 */
export type TransactPutInput = NonNullable<TransactItem['Put']>;
/**
 * lib-dynamodb's transactional Update input (`TableName`, `Key`, `UpdateExpression`, …).
 *
 * @example
 * ```ts
 * const update: TransactUpdateInput = { TableName: 't', Key: { pk: 'a' }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } };
 * ```
 * @public
 */
export type TransactUpdateInput = NonNullable<TransactItem['Update']>;
/**
 * lib-dynamodb's transactional Delete input (`TableName`, `Key`, optional condition).
 *
 * @example
 * ```ts
 * const del: TransactDeleteInput = { TableName: 'holds', Key: { holdId: 'h-1' } };
 * ```
 * @public
 */
export type TransactDeleteInput = NonNullable<TransactItem['Delete']>;
/**
 * lib-dynamodb's ConditionCheck input (`TableName`, `Key`, `ConditionExpression`).
 *
 * @example
 * ```ts
 * const check: TransactConditionCheckInput = { TableName: 'accounts', Key: { accountId: 'a' }, ConditionExpression: 'attribute_exists(accountId)' };
 * ```
 * @public
 */
export type TransactConditionCheckInput = NonNullable<TransactItem['ConditionCheck']>;

/**
 * What `tx.publish` needs to know about the message being handled: its consumer and key (the
 * outgoing ids derive from them) and the outbox table, if the store has one.
 *
 * @example
 * ```ts
 * const { tx } = openTransaction({ consumer: 'ledger', key: 'pay-1', outboxTableName: 'outbox' });
 * ```
 */
export interface PublishContext {
  readonly consumer: string;
  readonly key: string;
  readonly outboxTableName: string | undefined;
}

/**
 * The processor's side of one message's transaction: the builder it hands the handler, what
 * the handler added to it, and the means to close it. Only the processor holds it: the
 * builder's public surface is what a handler may call, and nothing of this.
 *
 * @example
 * ```ts
 * const transaction = openTransaction(context);
 * try { await handler(message, transaction.tx); } finally { transaction.close(message.messageId); }
 * await store.commit({ entry, operations: transaction.operations, outgoing: transaction.outgoing });
 * ```
 */
export interface OpenTransaction {
  /** The builder handed to the handler. */
  readonly tx: TransactionBuilder;
  /** The operations added so far, in order. */
  readonly operations: readonly TransactItem[];
  /** The messages published so far, in order, with their ids. */
  readonly outgoing: readonly OutgoingMessage[];
  /**
   * Refuses every later call on `tx`: the processor closes it when the handler settles, so an
   * operation added late throws instead of silently missing the commit.
   */
  close(messageId: string): void;
}

// Set by TransactionBuilder's static block, the one place that reaches its private state: the
// builder a handler gets carries no plumbing, in its declarations or at run time.
let open: (publishing: PublishContext | undefined) => OpenTransaction;

/**
 * Opens one message's transaction: a new builder, and the processor's side of it. Without a
 * publish context `tx.publish` is refused.
 *
 * @example
 * ```ts
 * const transaction = openTransaction({ consumer: 'ledger', key: 'pay-1', outboxTableName: undefined });
 * transaction.tx.put({ TableName: 't', Item: { pk: 'a' } });
 * transaction.operations.length; // => 1
 * ```
 */
export function openTransaction(publishing?: PublishContext): OpenTransaction {
  return open(publishing);
}

/**
 * Collects the business writes of one message, and the messages it publishes. Everything added
 * here is committed in the same `TransactWriteItems` as the message's inbox entry: all of it
 * happens exactly once, or none of it; a published message is relayed after the commit. Inputs use lib-dynamodb's native values (no `{ S: … }` wrappers). Each call checks
 * the operation's shape and the 99-operation budget at once, so a bad operation fails inside
 * your handler with a `TransactionLimitError` that names it. The processor builds one for each
 * message and hands it to the handler: it has no public constructor, and what was added is the
 * processor's to read.
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
 * @public
 */
export class TransactionBuilder {
  readonly #items: TransactItem[] = [];
  readonly #outgoing: OutgoingMessage[] = [];
  readonly #publishing: PublishContext | undefined;
  #outboxItemCount = 0;
  #closedFor: string | undefined;

  /** The processor opens one per message, with `openTransaction`. */
  private constructor(publishing: PublishContext | undefined) {
    this.#publishing = publishing;
  }

  static {
    open = (publishing) => {
      const tx = new TransactionBuilder(publishing);
      return {
        tx,
        get operations() {
          return tx.#items;
        },
        get outgoing() {
          return tx.#outgoing;
        },
        close(messageId) {
          tx.#closedFor = messageId;
        },
      };
    };
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

  /**
   * Publishes a message through the outbox: it is written to the outbox table in this same
   * transaction, so it exists if and only if the message's effects commit, and the relay sends
   * it afterwards, at least once, always with the id returned here. The id is the same on
   * every attempt of this incoming message (see `outboxMessageId`). Each message without a
   * group, and each group of one destination, takes one of the transaction's 99 operations.
   * Throws `OutgoingMessageError` naming the field to change.
   */
  publish(input: PublishInput): string {
    const index = this.#outgoing.length;
    if (this.#closedFor !== undefined) throw new TransactionClosedError(this.#closedFor, 'publish');
    const context = this.#publishing;
    if (context?.outboxTableName === undefined) {
      throw new OutgoingMessageError(
        'outbox',
        index,
        'is not configured: give the store an outbox table (new DynamoDBInboxStore({ tableName, ' +
          "outbox: { tableName } })) or deploy the consumer with the construct's outbox",
      );
    }
    const name = (input as { name?: unknown } | undefined)?.name;
    const at = typeof name === 'string' ? { name } : { index };
    const message = toOutgoingMessage(
      input,
      index,
      outboxMessageId(context.consumer, context.key, at),
    );
    if (this.#outgoing.some(({ id }) => id === message.id)) {
      throw new OutgoingMessageError(
        'name',
        index,
        'is used twice: give each published message its own name',
      );
    }
    const itemCount = planOutboxItems([...this.#outgoing, message]).length;
    this.#checkBudget(this.#items.length + itemCount);
    this.#outgoing.push(message);
    this.#outboxItemCount = itemCount;
    return message.id;
  }

  #add(item: TransactItem, tableName: unknown): this {
    const type = Object.keys(item)[0] ?? 'operation';
    if (this.#closedFor !== undefined) throw new TransactionClosedError(this.#closedFor, type);
    requireString(tableName, 'TableName', type, this.#items.length);
    this.#checkBudget(this.#items.length + 1 + this.#outboxItemCount);
    this.#items.push(copyOperand(item));
    return this;
  }

  /** Refuses an operation or a message that would take the transaction past its budget. */
  #checkBudget(operations: number): void {
    if (operations <= TRANSACTION_LIMITS.maxBusinessOperations) return;
    throw new TransactionLimitError(
      TransactionLimit.OperationCount,
      `more than ${TRANSACTION_LIMITS.maxBusinessOperations} business operations and outbox ` +
        'items in one message (DynamoDB allows 100 per transaction and one is the inbox ' +
        'entry; each published message without a group, and each group, takes one); split ' +
        'the work across several messages.',
      operations,
      TRANSACTION_LIMITS.maxBusinessOperations,
    );
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
