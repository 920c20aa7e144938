import { setTimeout as sleep } from 'node:timers/promises';
import {
  type DynamoDBClient,
  DynamoDBServiceException,
  InternalServerError,
  ProvisionedThroughputExceededException,
  ThrottlingException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { RequestThrottled, type SQSClient, SQSServiceException } from '@aws-sdk/client-sqs';

/** The faults no emulator produces, injected into an SDK client's middleware stack. */
export const FaultKind = {
  /** TransactWriteItems cancelled because another transaction held an item. */
  TransactionConflict: 'TransactionConflict',
  /** Throttled by the service (DynamoDB capacity or request rate, SQS request rate). */
  Throttling: 'throttling',
  /** The service answered 500 or 503. */
  ServerError: '5xx',
  /** No answer before the request timeout: the request was never executed. */
  Timeout: 'timeout',
  /** The request was executed, then its answer was lost (a timeout after the fact). */
  LostResponse: 'lost response',
  /**
   * The caller timed out at once, but the request was still on its way and executes later —
   * after the caller retried or gave up: the ambiguous write the inbox condition exists for.
   */
  LateExecution: 'late execution',
} as const;
/** One of {@link FaultKind}. */
export type FaultKind = (typeof FaultKind)[keyof typeof FaultKind];

/** The service a client talks to: it decides which exceptions a fault takes. */
export type FaultService = 'dynamodb' | 'sqs';

/** One injected fault, as reported to `onFault`. */
export interface InjectedFault {
  readonly service: FaultService;
  readonly kind: FaultKind;
  readonly command: string;
}

/** How often and with which randomness faults are injected. */
export interface FaultInjection {
  readonly service: FaultService;
  /** Share of requests, in [0, 1), that fail with an injected fault. */
  readonly rate: number;
  /** A seeded source of randomness in [0, 1): the same seed injects the same fault stream. */
  readonly random: () => number;
  /** Longest wait before an injected timeout is thrown. */
  readonly maxTimeoutMillis?: number;
  /** Longest delay before a late-executing request runs. */
  readonly maxLateMillis?: number;
  readonly onFault?: (fault: InjectedFault) => void;
}

type Next = (args: { input: unknown }) => Promise<unknown>;
/** The part of an SDK v3 middleware stack this module uses. */
interface Stack {
  add(
    middleware: (next: Next, context: { commandName?: string }) => Next,
    options: { step: 'initialize'; name: string; priority: 'low' },
  ): void;
}

/**
 * Makes a share of a client's requests fail the way AWS fails them: TransactionConflict
 * cancellations, throttling, 500/503 answers, timeouts before the request, and answers lost
 * after the request was executed. It works through the SDK's middleware stack, outside the
 * SDK's own retries, so each fault reaches the caller as an exhausted retry would; the library
 * and the code around it are not edited.
 *
 * @example
 * ```ts
 * injectFaults(dynamodb, { service: 'dynamodb', rate: 0.05, random: seededRandom(7) });
 * ```
 */
export function injectFaults(client: DynamoDBClient | SQSClient, injection: FaultInjection): void {
  if (!(injection.rate >= 0 && injection.rate < 1))
    throw new RangeError(`the fault rate must be in [0, 1) (given ${injection.rate})`);
  (client.middlewareStack as unknown as Stack).add(
    (next, context) => async (args) => {
      if (injection.random() >= injection.rate) return next(args);
      const command = String(context.commandName ?? 'unknown');
      const kind = pickKind(injection, command);
      injection.onFault?.({ service: injection.service, kind, command });
      return fail(kind, injection, command, next, args);
    },
    { step: 'initialize', name: `chaosFaults-${injection.service}`, priority: 'low' },
  );
}

const GENERAL_KINDS = [
  FaultKind.Throttling,
  FaultKind.ServerError,
  FaultKind.Timeout,
  FaultKind.LostResponse,
  FaultKind.LateExecution,
] as const;

/** A transaction's most common failure is a conflict: half of its faults are one. */
function pickKind(injection: FaultInjection, command: string): FaultKind {
  const transaction = injection.service === 'dynamodb' && command === 'TransactWriteItemsCommand';
  if (transaction && injection.random() < 0.5) return FaultKind.TransactionConflict;
  return GENERAL_KINDS[Math.floor(injection.random() * GENERAL_KINDS.length)] ?? FaultKind.Timeout;
}

async function fail(
  kind: FaultKind,
  injection: FaultInjection,
  command: string,
  next: Next,
  args: { input: unknown },
): Promise<never> {
  const maxTimeoutMillis = injection.maxTimeoutMillis ?? 500;
  if (kind === FaultKind.LostResponse) {
    await next(args).catch(() => undefined);
    throw timeoutError(`${command} executed, then its response was lost`);
  }
  if (kind === FaultKind.LateExecution) {
    const delayMillis = injection.random() * (injection.maxLateMillis ?? 2_000);
    setTimeout(() => next(args).catch(() => undefined), delayMillis);
    throw timeoutError(
      `${command} timed out; it will still execute in ${Math.round(delayMillis)} ms`,
    );
  }
  if (kind === FaultKind.Timeout) {
    await sleep(injection.random() * maxTimeoutMillis);
    throw timeoutError(`${command} timed out before it was sent`);
  }
  if (kind === FaultKind.TransactionConflict) throw transactionConflict(args.input);
  if (kind === FaultKind.Throttling) throw throttling(injection);
  throw serverError(injection);
}

const $metadata = (httpStatusCode: number) => ({ httpStatusCode, requestId: 'injected' });

/** What the SDK's HTTP handler throws when its request timeout passes. */
function timeoutError(message: string): Error {
  return Object.assign(new Error(`injected: ${message}`), { name: 'TimeoutError' });
}

function transactionConflict(input: unknown): Error {
  const items = (input as { TransactItems?: unknown[] }).TransactItems ?? [];
  const conflicted = items.length - 1;
  return new TransactionCanceledException({
    message: 'injected: Transaction cancelled, please refer cancellation reasons',
    $metadata: $metadata(400),
    CancellationReasons: items.map((_, i) =>
      i === conflicted
        ? { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }
        : { Code: 'None' },
    ),
  });
}

function throttling(injection: FaultInjection): Error {
  if (injection.service === 'sqs')
    return new RequestThrottled({ message: 'injected: Rate exceeded', $metadata: $metadata(400) });
  return injection.random() < 0.5
    ? new ProvisionedThroughputExceededException({
        message: 'injected: The level of configured provisioned throughput was exceeded',
        $metadata: $metadata(400),
      })
    : new ThrottlingException({ message: 'injected: Rate exceeded', $metadata: $metadata(400) });
}

function serverError(injection: FaultInjection): Error {
  const unavailable = injection.random() < 0.5;
  if (injection.service === 'sqs')
    return new SQSServiceException({
      name: unavailable ? 'ServiceUnavailable' : 'InternalError',
      $fault: 'server',
      message: 'injected: the service failed',
      $metadata: $metadata(unavailable ? 503 : 500),
    });
  return unavailable
    ? new DynamoDBServiceException({
        name: 'ServiceUnavailable',
        $fault: 'server',
        message: 'injected: the service is unavailable',
        $metadata: $metadata(503),
      })
    : new InternalServerError({
        message: 'injected: Internal server error',
        $metadata: $metadata(500),
      });
}
