import type {
  CancellationReason,
  TransactWriteItem,
  TransactWriteItemsInput,
  TransactWriteItemsOutput,
} from '@aws-sdk/client-dynamodb';
import { checkParameters, IGNORED_PARAMETERS } from './checkParameters.js';
import type { Item } from './compareValues.js';
import type { Database } from './Database.js';
import {
  heldItemsCancellation,
  idempotentParameterMismatch,
  transactionCanceled,
  transactionInProgress,
  validationException,
} from './dynamoExceptions.js';
import { identityOf, type ServerTime } from './ItemHolds.js';
import { MAX_TRANSACTION_BYTES } from './itemBytes.js';
import {
  evaluateWrite,
  type PreparedWrite,
  prepareWrite,
  type WriteKind,
  type WriteOutcome,
} from './prepareWrite.js';

const MAX_ITEMS = 100;
const KINDS: readonly WriteKind[] = ['Put', 'Update', 'Delete', 'ConditionCheck'];
const EXPRESSIONS = [
  'ConditionExpression',
  'ExpressionAttributeNames',
  'ExpressionAttributeValues',
];
const COMMON = ['TableName', ...EXPRESSIONS, 'ReturnValuesOnConditionCheckFailure'];
const PARAMETERS: Record<WriteKind, readonly string[]> = {
  Put: ['Item', ...COMMON],
  Update: ['Key', 'UpdateExpression', ...COMMON],
  Delete: ['Key', ...COMMON],
  ConditionCheck: ['Key', ...COMMON],
};

/**
 * `TransactWriteItems`: checks every item as DynamoDB does before reading anything (count,
 * one operation per item, 4 MB, each write's own checks), evaluates every condition and
 * update against the items as they are, then applies all the writes or none. A failure
 * cancels the whole transaction with one reason per item in request order: `None`,
 * `ConditionalCheckFailed` (with the item, in wire form, when that item asked
 * `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'` and exists) or `ValidationError` (an update
 * that cannot apply, a key value over its size limit).
 * A `ClientRequestToken` of an applied transaction makes the same request again succeed
 * without applying anything, and other parameters with it fail with
 * `IdempotentParameterMismatchException`, for ten minutes from the transaction's completion (its
 * `at.holdMillis` after it applied); after that the token is forgotten, and a request carrying it
 * is new (see `ClientTokens`). A cancelled transaction keeps no token, so its request runs again
 * (as on DynamoDB Local and MiniStack).
 *
 * Given the time it reaches the server (`at`), it follows DynamoDB's conflict rules (see
 * `ItemHolds`): when a transaction in flight holds any of its items, it is cancelled with
 * `TransactionConflict` at each of those and `None` elsewhere, its conditions unread; applied, it
 * holds its items for `at.holdMillis`. The same token again while its transaction is in flight
 * is answered `TransactionInProgressException`; once that transaction is done, it succeeds
 * without applying, whatever holds its items by then (DynamoDB's idempotency: the first answer
 * stands, it is not a conflict with itself).
 *
 * @example
 * ```ts
 * transactWriteItems(db, { TransactItems: [{ Put: { TableName: 'inbox', Item: entry } }] });
 * ```
 */
export function transactWriteItems(
  db: Database,
  input: TransactWriteItemsInput,
  at?: ServerTime,
): TransactWriteItemsOutput {
  checkParameters('TransactWriteItems', input, [
    'TransactItems',
    'ClientRequestToken',
    ...IGNORED_PARAMETERS,
  ]);
  const request = tokenRequest(db, input, at);
  if (request !== undefined && isRepeated(db, request, at)) return {};
  const writes = checkCount(input.TransactItems ?? []).map((item) => prepareItem(db, item));
  checkDistinctItems(writes);
  checkPayload(writes);
  const held = at === undefined ? [] : db.holds.heldIndexes(writes, at.nowMillis);
  if (at !== undefined && held.length > 0) {
    const heldBy = db.holds.holdersOf(writes, at.nowMillis);
    db.noteConflict({ atMillis: at.nowMillis, operation: 'TransactWriteItems', by: at.by, heldBy });
    throw heldItemsCancellation(writes.length, held);
  }
  const currents = writes.map((write) => write.table.items.get(write.id));
  const outcomes = writes.map((write, at) => evaluateWrite(write, currents[at]));
  if (outcomes.some((outcome) => !outcome.ok)) {
    throw transactionCanceled(
      outcomes.map((outcome, at) => reasonOf(outcome, writes[at], currents[at])),
    );
  }
  const transactionId = db.nextTransactionId();
  for (const [at, write] of writes.entries()) {
    const outcome = outcomes[at];
    if (write.kind === 'ConditionCheck' || !outcome?.ok) continue;
    db.write(write.table, write.id, write.key, outcome.next, 'write', transactionId);
  }
  if (request !== undefined) rememberToken(db, request, at);
  if (at !== undefined) db.holds.hold(writes, request?.token, at);
  return {};
}

/** A request's `ClientRequestToken`, its parameters as text and when it reached the server. */
interface TokenRequest {
  readonly token: string;
  readonly parameters: string;
  readonly nowMillis: number | undefined;
}

function tokenRequest(
  db: Database,
  input: TransactWriteItemsInput,
  at: ServerTime | undefined,
): TokenRequest | undefined {
  const token = input.ClientRequestToken;
  if (token === undefined) return undefined;
  checkToken(token);
  const parameters = JSON.stringify(input.TransactItems ?? []);
  return { token, parameters, nowMillis: db.requestMillis(at) };
}

/**
 * Whether the request repeats a transaction applied with its token whose ten minutes are not
 * over: with the same parameters it is answered as that one was (once it is done); with others it
 * is refused.
 */
function isRepeated(db: Database, request: TokenRequest, at: ServerTime | undefined): boolean {
  const applied = db.clientTokens.appliedWith(request.token, request.nowMillis);
  if (applied === undefined) return false;
  if (applied !== request.parameters) throw idempotentParameterMismatch();
  if (at && db.holds.inProgress(request.token, at.nowMillis)) throw transactionInProgress();
  return true;
}

/** Remembers the token of an applied transaction, completed when its hold ends. */
function rememberToken(db: Database, request: TokenRequest, at: ServerTime | undefined): void {
  const { token, parameters, nowMillis } = request;
  const completedMillis = nowMillis === undefined ? undefined : nowMillis + (at?.holdMillis ?? 0);
  db.clientTokens.remember(token, parameters, completedMillis);
}

function checkToken(token: string): void {
  if (token.length >= 1 && token.length <= 36) return;
  throw validationException(
    "1 validation error detected: Value at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36",
  );
}

function checkCount(items: readonly TransactWriteItem[]): readonly TransactWriteItem[] {
  if (items.length === 0) {
    throw validationException(
      "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1",
    );
  }
  if (items.length > MAX_ITEMS) {
    throw validationException(
      "1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100",
    );
  }
  return items;
}

function prepareItem(db: Database, item: TransactWriteItem): PreparedWrite {
  const kinds = KINDS.filter((kind) => item[kind] !== undefined);
  const [kind] = kinds;
  if (kinds.length !== 1 || kind === undefined) {
    throw validationException('TransactItems can only contain one of Check, Put, Update or Delete');
  }
  const input = item[kind] as NonNullable<TransactWriteItem[typeof kind]>;
  checkParameters(`TransactWriteItems ${kind}`, input, PARAMETERS[kind]);
  if (kind === 'Update' && !('UpdateExpression' in input && input.UpdateExpression !== undefined)) {
    throw validationException(
      "1 validation error detected: Value null at 'updateExpression' failed to satisfy constraint: Member must not be null",
    );
  }
  // A key value over its limit cancels the transaction with a reason at its item, as on Local.
  return prepareWrite(kind, input, (name) => db.table(name), 'report');
}

/** Two writes of one item refuse the transaction; keys too large to name an item are left to cancel it. */
function checkDistinctItems(writes: readonly PreparedWrite[]): void {
  const seen = new Set<string>();
  for (const write of writes) {
    if (write.keyTooLarge) continue;
    const identity = identityOf(write);
    if (seen.has(identity)) {
      throw validationException(
        'Transaction request cannot include multiple operations on one item',
      );
    }
    seen.add(identity);
  }
}

/** DynamoDB Local counts the Put items; keys and values stand for the other writes. */
function checkPayload(writes: readonly PreparedWrite[]): void {
  let bytes = 0;
  for (const write of writes) bytes += write.payloadBytes;
  if (bytes > MAX_TRANSACTION_BYTES) {
    throw validationException(`Transaction payload size cannot exceed 4MB. Payload Size: ${bytes}`);
  }
}

function reasonOf(
  outcome: WriteOutcome | undefined,
  write: PreparedWrite | undefined,
  current: Item | undefined,
): CancellationReason {
  if (outcome === undefined || outcome.ok) return { Code: 'None' };
  const withItem =
    outcome.code === 'ConditionalCheckFailed' && write?.returnOldOnFailure && current;
  return { Code: outcome.code, Message: outcome.message, ...(withItem ? { Item: current } : {}) };
}
