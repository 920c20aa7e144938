import type { SQSClient } from '@aws-sdk/client-sqs';
import {
  businessTableVariable,
  DEFAULT_OUTBOX_RETENTION_SECONDS,
  destinationVariable,
  InboxEnvironment,
  RETRY_LIMITS,
} from '../../constants/values.js';
import type { InboxTestOptions, InboxTestProcessorOptions } from './InboxTestOptions.js';

/** The harness's table names. */
export interface HarnessTables {
  readonly inbox: string;
  readonly outbox: string;
}

/**
 * The environment the `InboxConsumer` construct would give the function, for the harness's
 * options and tables: the inbox, the dead-letter queue, the outbox, your tables, the sources and
 * destinations, and the `INBOX_RETRY_*` variables of its `retry` (the construct's
 * `retryEnvironment`: the margin always, the backoff's delays when set, none for `false`).
 *
 * @example
 * ```ts
 * harnessEnvironment(inbox.options, { consumer: 'ledger' }, { inbox: 'inbox', outbox: 'outbox' });
 * // => { INBOX_TABLE_NAME: 'inbox', INBOX_CONSUMER: 'ledger', …, INBOX_RETRY_LEASE_HELD_MARGIN_SECONDS: '2' }
 * ```
 */
export function harnessEnvironment(
  options: InboxTestProcessorOptions,
  test: InboxTestOptions,
  tables: HarnessTables,
): Record<string, string> {
  return {
    [InboxEnvironment.TableName]: tables.inbox,
    [InboxEnvironment.Consumer]: options.consumer,
    [InboxEnvironment.TtlSeconds]: String(options.ttlSeconds),
    [InboxEnvironment.DeadLetterQueueUrl]: options.deadLetter.queueUrl,
    [InboxEnvironment.MaxReceiveCount]: String(options.deadLetter.maxReceiveCount),
    ...(test.outbox
      ? {
          [InboxEnvironment.OutboxTableName]: tables.outbox,
          [InboxEnvironment.OutboxRetentionSeconds]: String(DEFAULT_OUTBOX_RETENTION_SECONDS),
        }
      : {}),
    ...Object.fromEntries(
      (test.tables ?? []).map((table) => [businessTableVariable(table.tableName), table.tableName]),
    ),
    ...(test.sources ? { [InboxEnvironment.Sources]: test.sources.join(',') } : {}),
    ...Object.fromEntries(
      Object.entries(test.destinations ?? {}).map(([name, address]) => [
        destinationVariable(name),
        address,
      ]),
    ),
    ...retryVariables(options.retry),
  };
}

/**
 * The processor's `retry` group for the harness's `retry` option, as the construct resolves its
 * prop: the default `{}` re-times lease-held copies (the margin, 2 s, set), `false` none; the
 * changes go through the harness's queues.
 *
 * @example
 * ```ts
 * harnessRetry(undefined, queues.client); // => { leaseHeldMarginSeconds: 2, client }
 * ```
 */
export function harnessRetry(
  retry: InboxTestOptions['retry'],
  client: SQSClient,
): InboxTestProcessorOptions['retry'] {
  if (retry === false) return undefined;
  return {
    ...(retry?.backoff ? { backoff: retry.backoff } : {}),
    leaseHeldMarginSeconds:
      retry?.leaseHeldMarginSeconds ?? RETRY_LIMITS.defaultLeaseHeldMarginSeconds,
    client,
  };
}

function retryVariables(retry: InboxTestProcessorOptions['retry']): Record<string, string> {
  if (retry === undefined) return {};
  return {
    [InboxEnvironment.RetryLeaseHeldMarginSeconds]: String(retry.leaseHeldMarginSeconds),
    ...(retry.backoff && {
      [InboxEnvironment.RetryFirstDelaySeconds]: String(retry.backoff.firstDelaySeconds),
      [InboxEnvironment.RetryMaxDelaySeconds]: String(retry.backoff.maxDelaySeconds),
    }),
  };
}
