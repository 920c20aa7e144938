import { InvalidConfigurationError } from '../../errors/configurationErrors.js';
import { transactionConflict } from './dynamoExceptions.js';
import type { DynamoOperation } from './SimDocumentClient.js';
import type { SimDynamoDB } from './SimDynamoDB.js';

/**
 * What an injected fault does to a request — the answers no emulator gives on demand.
 *
 * @example
 * ```ts
 * dynamo.injectFault({ fault: DynamoFault.Conflict, operation: 'TransactWriteItems' });
 * ```
 * @public
 */
export const DynamoFault = {
  /** Refused for a transaction in flight on one of its items: `TransactionConflict`. Nothing applied. */
  Conflict: 'conflict',
  /** Refused for throughput: `ThrottlingException`. Nothing applied. */
  Throttling: 'throttling',
  /** Applied, and its answer lost: the caller gets the SDK's `TimeoutError`. */
  LostResponse: 'lostResponse',
  /** Lost on its way: the caller gets the SDK's `TimeoutError`. Nothing applied. */
  Timeout: 'timeout',
} as const;
/**
 * One of the values of `DynamoFault`.
 * @public
 */
export type DynamoFault = (typeof DynamoFault)[keyof typeof DynamoFault];

/**
 * A fault to inject into the next matching requests.
 *
 * @example
 * ```ts
 * const fault: InjectedFault = { fault: DynamoFault.Throttling, operation: 'GetItem', times: 3 };
 * ```
 * @public
 */
export interface InjectedFault {
  /** What happens to the request. */
  readonly fault: DynamoFault;
  /** The operation it hits (`TransactWriteItems`, `UpdateItem`, `GetItem`…); default any. */
  readonly operation?: string;
  /** Only requests that touch this table; default any. */
  readonly tableName?: string;
  /** How many matching requests it hits; default 1. */
  readonly times?: number;
}

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems']);

interface Pending {
  readonly fault: InjectedFault;
  left: number;
}

/**
 * The faults waiting for their requests, applied by the in-memory DynamoDB's transport: each
 * request meets the first pending fault it matches.
 */
export class InjectedFaults {
  readonly #pending: Pending[] = [];

  /** Queues a fault, after checking it can happen to the operation it names. */
  add(fault: InjectedFault): void {
    const times = fault.times ?? 1;
    if (!Number.isInteger(times) || times < 1)
      throw new InvalidConfigurationError('times', fault.times, 'a whole number from 1');
    if (!Object.values(DynamoFault).includes(fault.fault))
      throw new InvalidConfigurationError(
        'fault',
        fault.fault,
        Object.values(DynamoFault).join(', '),
      );
    if (
      fault.fault === DynamoFault.Conflict &&
      fault.operation !== undefined &&
      !WRITES.has(fault.operation)
    )
      throw new InvalidConfigurationError(
        'operation',
        fault.operation,
        `a write (${[...WRITES].join(', ')}): only writes meet a transaction conflict`,
      );
    this.#pending.push({ fault, left: times });
  }

  /** How many injected faults have not met their requests yet. */
  get pending(): number {
    return this.#pending.reduce((sum, pending) => sum + pending.left, 0);
  }

  /** Applies the request, or answers it with the first pending fault it matches. */
  async apply(operation: DynamoOperation, dynamo: SimDynamoDB): Promise<unknown> {
    const match = this.#pending.find((pending) => matches(pending.fault, operation));
    if (match === undefined) return operation.apply();
    match.left -= 1;
    if (match.left === 0) this.#pending.splice(this.#pending.indexOf(match), 1);
    switch (match.fault.fault) {
      case DynamoFault.Conflict:
        throw operation.name === 'TransactWriteItems'
          ? dynamo.injectedConflict(operation.input)
          : transactionConflict();
      case DynamoFault.Throttling:
        throw dynamo.throttled(operation.name);
      case DynamoFault.LostResponse:
        try {
          operation.apply();
        } catch {
          // Its answer, a refusal this time, is lost all the same.
        }
        throw timeoutError(operation.name);
      case DynamoFault.Timeout:
        throw timeoutError(operation.name);
    }
  }
}

function matches(fault: InjectedFault, operation: DynamoOperation): boolean {
  if (fault.operation !== undefined && fault.operation !== operation.name) return false;
  if (fault.fault === DynamoFault.Conflict && !WRITES.has(operation.name)) return false;
  return fault.tableName === undefined || operation.tableNames.includes(fault.tableName);
}

/** What the SDK throws when no answer came in time (its request timeout). */
function timeoutError(operationName: string): Error {
  const error = new Error(`${operationName}: no response in time (injected)`);
  error.name = 'TimeoutError';
  return error;
}
