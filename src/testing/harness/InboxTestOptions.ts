import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBInboxStore } from '../../aws/DynamoDBInboxStore.js';
import type { InboxTracer } from '../../core/InboxTracer.js';
import type { InboxLogger } from '../../core/types.js';
import type { InboxRuntime } from '../../runtime/InboxRuntime.js';
import type { MessageSource } from '../../sources/MessageSource.js';
import type { TestTable } from '../tableDefinitions.js';
import type { TestClock } from './TestClock.js';

/**
 * The inbox options {@link InboxTest} gives a processor (spread them into yours).
 *
 * @example
 * ```ts
 * createBatchProcessor(handler, {
 *   ...inbox.options, schema: PaymentSchema, key: ({ body }) => body.eventId,
 * });
 * ```
 * @public
 */
export interface InboxTestProcessorOptions {
  /** The store over the in-memory inbox table (and outbox table). */
  readonly store: DynamoDBInboxStore;
  /** The consumer's name. */
  readonly consumer: string;
  /** The inbox entries' TTL. */
  readonly ttlSeconds: number;
  /** The in-memory dead-letter queue, its client, and the source queue's maxReceiveCount. */
  readonly deadLetter: {
    readonly queueUrl: string;
    readonly maxReceiveCount: number;
    readonly client: SQSClient;
  };
  /**
   * When SQS delivers a failed record again (the `retry` option): the construct's default, a
   * lease-held copy 2 s after the lease ends, and the backoff if asked; its visibility changes go
   * to the in-memory queues. Absent with `retry: false`.
   */
  readonly retry?: {
    readonly backoff?: { readonly firstDelaySeconds: number; readonly maxDelaySeconds: number };
    readonly leaseHeldMarginSeconds: number;
    readonly client: SQSClient;
  };
  /** The test clock, with timers that die with their invocation. */
  readonly runtime: InboxRuntime;
  /** A logger into `logs`, a tracer that tells the steps, and no metrics. */
  readonly observability: {
    readonly logger: InboxLogger;
    readonly tracer: InboxTracer;
    readonly metrics: false;
  };
}

/**
 * Options of {@link InboxTest}.
 *
 * @example
 * ```ts
 * const options: InboxTestOptions = { consumer: 'ledger', tables: [{ tableName: 'accounts', partitionKey: 'accountId' }] };
 * ```
 * @public
 */
export interface InboxTestOptions {
  /** The consumer's name; default `test`. */
  readonly consumer?: string;
  /** Your business tables, created empty. */
  readonly tables?: readonly TestTable[];
  /** The inbox entries' TTL; default the construct's (23 days). */
  readonly ttlSeconds?: number;
  /** The source queue's `maxReceiveCount`; default the construct's (5). */
  readonly maxReceiveCount?: number;
  /** An outbox table (`outbox`) for `tx.publish`; default none. */
  readonly outbox?: boolean;
  /**
   * Where the queue's messages come from, as the construct's `sources` declare them
   * (`INBOX_SOURCES`); default `['sqs']`, messages sent to the queue.
   */
  readonly sources?: readonly MessageSource[];
  /**
   * The outbox destinations by name, each a queue URL, topic ARN or bus ARN, as the construct
   * gives them (`INBOX_DESTINATION_<name>`): what `inboxConfig().destination(name)` returns.
   */
  readonly destinations?: Readonly<Record<string, string>>;
  /**
   * When SQS delivers a failed record again, as the construct's `retry` prop declares it, in
   * whole seconds (the library's `retry` group, without a client): default `{}`, as the
   * construct's — a copy refused by a live lease (`LeaseHeldError`) comes back
   * `leaseHeldMarginSeconds` (2) after the lease ends; `backoff` delays every other retryable
   * failure; `false` changes no visibility, and every failure waits the queue's own timeout.
   * `run` reports the delay each record got (`retryDelaySeconds`).
   */
  readonly retry?:
    | {
        readonly backoff?: {
          readonly firstDelaySeconds: number;
          readonly maxDelaySeconds: number;
        };
        readonly leaseHeldMarginSeconds?: number;
      }
    | false;
  /** The clock; default a {@link TestClock} at 2026-01-01. */
  readonly clock?: TestClock;
}
