import {
  type CancellationReason,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';

/**
 * DynamoDB's transaction conflict rules, for the benchmark (no emulator implements them): while
 * a `TransactWriteItems` is in flight it holds its items; another `TransactWriteItems` touching
 * one of them is cancelled with a `TransactionConflict` reason at that item's index (`None`
 * elsewhere); a `PutItem`, `UpdateItem` or `DeleteItem` on one fails with
 * `TransactionConflictException`; single-item writes and reads hold nothing and reads are never
 * refused. The SDK retries neither error. Rules: "Transaction conflict handling in DynamoDB",
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-conflict-handling;
 * the reason's code and message and the exception's wording: the TransactionCanceledException
 * section of https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html.
 *
 * Left out: `BatchWriteItem` and `TransactGetItems` (the benchmark sends neither), and a
 * conflicting transaction's own conditions (it is refused before DynamoDB would judge them).
 */

/** What the model says of a request: go ahead (and release its hold once answered), or fail. */
export type Admission =
  | { readonly release: () => void; readonly refusal?: undefined }
  | { readonly refusal: Error; readonly release?: undefined };

const CONFLICT_MESSAGE = 'Transaction is ongoing for the item';

const SINGLE_ITEM_WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand']);

const OPEN: Admission = { release: () => {} };

/**
 * The items in flight in one DynamoDB, shared by every client of a run. A transaction is
 * admitted when none of its items is held, and then holds them until it answers.
 *
 * @example
 * ```ts
 * const admission = conflicts.admit('TransactWriteItemsCommand', input);
 * if (admission.refusal) throw admission.refusal;
 * try { await send(); } finally { admission.release(); }
 * ```
 */
export class ConflictModel {
  readonly #keyAttributes: ReadonlyMap<string, readonly string[]>;
  readonly #held = new Set<string>();

  /** @param keyAttributes each table's key attribute names, to find the key of a `Put`'s item. */
  constructor(keyAttributes: ReadonlyMap<string, readonly string[]>) {
    this.#keyAttributes = keyAttributes;
  }

  /** How many items transactions hold now. */
  get heldItems(): number {
    return this.#held.size;
  }

  /**
   * Admits a request (by the SDK's command name and its input, marshalled or not) or refuses it
   * as DynamoDB would: synchronously, so that of two requests the first to ask holds.
   */
  admit(commandName: string, input: Record<string, unknown>): Admission {
    if (commandName === 'TransactWriteItemsCommand') return this.#admitTransaction(input);
    if (SINGLE_ITEM_WRITES.has(commandName)) {
      const held = this.#held.has(this.#itemOf(input));
      return held ? { refusal: conflictException() } : OPEN;
    }
    return OPEN;
  }

  #admitTransaction(input: Record<string, unknown>): Admission {
    const operations = (input.TransactItems as Array<Record<string, unknown>> | undefined) ?? [];
    const items = operations.map((operation) => {
      const [action] = Object.values(operation) as Array<Record<string, unknown>>;
      return this.#itemOf(action ?? {});
    });
    if (items.some((item) => this.#held.has(item))) {
      return { refusal: cancelledException(items.map((item) => this.#held.has(item))) };
    }
    for (const item of items) this.#held.add(item);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        for (const item of items) this.#held.delete(item);
      },
    };
  }

  /** An item's identity: its table and key, the same whether the input is marshalled or not. */
  #itemOf(action: Record<string, unknown>): string {
    const table = String(action.TableName);
    const key = (action.Key ?? this.#keyOfPut(table, action.Item)) as Record<string, unknown>;
    const parts = Object.keys(key)
      .sort()
      .map((name) => [name, plainValue(key[name])]);
    return JSON.stringify([table, parts]);
  }

  #keyOfPut(table: string, item: unknown): Record<string, unknown> {
    const attributes = this.#keyAttributes.get(table);
    if (attributes === undefined || typeof item !== 'object' || item === null) {
      throw new Error(
        `The conflict model knows no key schema for table ${table}: pass its key attributes to ConflictModel.`,
      );
    }
    const record = item as Record<string, unknown>;
    return Object.fromEntries(attributes.map((name) => [name, record[name]]));
  }
}

/** A key value as the document client gives it (`'acc-1'`) or as marshalled (`{ S: 'acc-1' }`). */
function plainValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const typed = value as { S?: unknown; N?: unknown; B?: unknown };
  if (typed.S !== undefined) return typed.S;
  if (typed.N !== undefined) return Number(typed.N);
  return typed.B ?? value;
}

/** What the SDK throws for a cancelled transaction: one reason per item, in the items' order. */
function cancelledException(conflicting: readonly boolean[]): TransactionCanceledException {
  const reasons: CancellationReason[] = conflicting.map((conflict) =>
    conflict ? { Code: 'TransactionConflict', Message: CONFLICT_MESSAGE } : { Code: 'None' },
  );
  const message = `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((reason) => reason.Code).join(', ')}]`;
  return new TransactionCanceledException({
    message,
    Message: message,
    CancellationReasons: reasons,
    $metadata: { httpStatusCode: 400, attempts: 1, totalRetryDelay: 0 },
  });
}

/** What the SDK throws for a single-item write on an item a transaction holds. */
function conflictException(): TransactionConflictException {
  return new TransactionConflictException({
    message: CONFLICT_MESSAGE,
    $metadata: { httpStatusCode: 400, attempts: 1, totalRetryDelay: 0 },
  });
}
