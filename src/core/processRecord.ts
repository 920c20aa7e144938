import { setTimeout as sleep } from 'node:timers/promises';
import type { Context, SQSRecord } from 'aws-lambda';
import { InboxMetric, MAX_KEY_BYTES, RecordStatus } from '../constants.js';
import {
  KeyDerivationError,
  MessageParseError,
  PayloadMismatchError,
  SchemaValidationError,
  TransientStoreError,
} from '../errors.js';
import {
  buildEntry,
  hashPayload,
  type InboxEntry,
  inboxPk,
  isLive,
  toEpochSeconds,
} from './inboxEntry.js';
import { loggedKey } from './loggedKey.js';
import { redriveUnsafeMessageIdKey } from './redriveUnsafeMessageIdKey.js';
import type { ResolvedOptions } from './resolveOptions.js';
import { loggableError, settleFailure } from './settleFailure.js';
import { TransactionBuilder } from './TransactionBuilder.js';
import type { InboxMessage, MessageHandler, ParsedMessage, RecordOutcome } from './types.js';

const BACKOFF_BASE_MILLIS = 50;
const BACKOFF_CAP_MILLIS = 1000;

/**
 * Runs one SQS record through the inbox: parse, validate, derive the key, skip a known
 * duplicate, run the handler, and commit its operations with the inbox entry in one
 * transaction. Never throws: every failure becomes an outcome, so one record cannot take
 * the batch down. A permanent failure goes to the dead-letter queue when one is configured.
 *
 * @example
 * ```ts
 * const outcome = await processRecord(record, context, handler, resolvedOptions);
 * if (outcome.status === 'failed') console.log(outcome.error);
 * ```
 */
export async function processRecord(
  record: SQSRecord,
  context: Context | undefined,
  handler: MessageHandler<unknown>,
  options: ResolvedOptions,
  signal: AbortSignal = new AbortController().signal,
): Promise<RecordOutcome> {
  let key: string | undefined;
  try {
    const parsed = await parseMessage(record, options);
    key = deriveKey(parsed, options);
    return await processWithRetries({ ...parsed, key, context, signal }, handler, options);
  } catch (error) {
    // The batch answered at its deadline without this record (reported failed then): what it
    // ends with now is only logged, never dead-lettered, and not counted twice.
    if (signal.aborted) return settledLate(record, key, error, options);
    return settleFailure(record, key, error, options);
  }
}

function settledLate(
  record: SQSRecord,
  key: string | undefined,
  error: unknown,
  options: ResolvedOptions,
): RecordOutcome {
  options.logger.debug('record settled after its batch answered at the deadline', {
    consumer: options.consumer,
    ...loggedKey(key, options.logKeys),
    messageId: record.messageId,
    error: loggableError(error),
  });
  return { messageId: record.messageId, key, status: RecordStatus.Failed, error };
}

async function parseMessage(
  record: SQSRecord,
  options: ResolvedOptions,
): Promise<ParsedMessage<unknown>> {
  let value: unknown;
  try {
    value = await options.parser(record.body);
  } catch (error) {
    throw new MessageParseError(record.messageId, {
      parser: options.parser === JSON.parse ? 'json' : 'custom',
      error,
      bodyLength: record.body.length,
    });
  }
  const body = options.schema ? await validate(record.messageId, value, options) : value;
  return {
    body,
    messageId: record.messageId,
    attributes: record.attributes,
    messageAttributes: record.messageAttributes ?? {},
    record,
  };
}

async function validate(
  messageId: string,
  value: unknown,
  options: ResolvedOptions,
): Promise<unknown> {
  const result = await options.schema?.['~standard'].validate(value);
  if (result === undefined || result.issues === undefined) return result?.value;
  throw new SchemaValidationError(
    messageId,
    result.issues.map((issue) => ({
      message: issue.message,
      path: (issue.path ?? [])
        .map((part) => String(typeof part === 'object' ? part.key : part))
        .join('.'),
    })),
  );
}

function deriveKey(message: ParsedMessage<unknown>, options: ResolvedOptions): string {
  let key: unknown;
  try {
    key = options.key(message);
  } catch (error) {
    throw new KeyDerivationError(message.messageId, undefined, error);
  }
  if (typeof key !== 'string' || key.length === 0 || Buffer.byteLength(key) > MAX_KEY_BYTES) {
    throw new KeyDerivationError(message.messageId, key);
  }
  warnIfContentBasedKey(message, options);
  return key;
}

function warnIfContentBasedKey(message: ParsedMessage<unknown>, options: ResolvedOptions): void {
  const deduplicationId = message.attributes.MessageDeduplicationId;
  if (options.key !== redriveUnsafeMessageIdKey || options.warned.has('contentBasedKey')) return;
  if (deduplicationId !== hashPayload(message.record.body)) return;
  options.warned.add('contentBasedKey');
  options.logger.warn(
    'the dedup key is the FIFO content-based deduplication id (the body hash): identical bodies ' +
      'are deduplicated for ttlSeconds, not 5 minutes. Put an event id in the body and set `key`.',
    { consumer: options.consumer, messageId: message.messageId },
  );
}

async function processWithRetries(
  message: InboxMessage<unknown>,
  handler: MessageHandler<unknown>,
  options: ResolvedOptions,
): Promise<RecordOutcome> {
  const payloadHash = hashPayload(message.record.body);
  for (let attempt = 1; ; attempt++) {
    try {
      return await attemptOnce(message, payloadHash, handler, options);
    } catch (error) {
      const retry = error instanceof TransientStoreError && attempt < options.transactionAttempts;
      if (!retry || message.signal.aborted) throw error;
      options.logger.debug('transient DynamoDB failure, retrying', {
        consumer: options.consumer,
        ...loggedKey(message.key, options.logKeys),
        messageId: message.messageId,
        attempt,
        reason: error.reason,
      });
      await sleep(Math.random() * Math.min(BACKOFF_CAP_MILLIS, BACKOFF_BASE_MILLIS * 2 ** attempt));
    }
  }
}

async function attemptOnce(
  message: InboxMessage<unknown>,
  payloadHash: string,
  handler: MessageHandler<unknown>,
  options: ResolvedOptions,
): Promise<RecordOutcome> {
  if (options.precheck) {
    const existing = await findLive(message, options);
    if (existing) return acknowledgeDuplicate(message, payloadHash, existing, options);
  }
  message.signal.throwIfAborted();
  const tx = new TransactionBuilder();
  const startedMillis = performance.now();
  try {
    await handler(message, tx);
  } finally {
    tx.close(message.messageId);
  }
  options.metrics?.addMetric(
    InboxMetric.HandlerLatency,
    'Milliseconds',
    performance.now() - startedMillis,
  );
  // Past the batch's deadline the record was reported failed: do not commit it now.
  message.signal.throwIfAborted();
  const nowMillis = options.now();
  const entry = buildEntry({
    ...message,
    consumer: options.consumer,
    payloadHash,
    nowMillis,
    ttlSeconds: options.ttlSeconds,
  });
  const result = await options.store.commit({
    entry,
    operations: tx.operations,
    nowEpochSeconds: toEpochSeconds(nowMillis),
  });
  if (!result.committed)
    return acknowledgeDuplicate(message, payloadHash, result.existing, options);
  options.metrics?.addMetric(InboxMetric.Processed, 'Count', 1);
  options.logger.debug('message committed', {
    consumer: options.consumer,
    ...loggedKey(message.key, options.logKeys),
    messageId: message.messageId,
    operations: tx.operations.length,
  });
  return { messageId: message.messageId, key: message.key, status: RecordStatus.Processed };
}

async function findLive(
  message: InboxMessage<unknown>,
  options: ResolvedOptions,
): Promise<InboxEntry | undefined> {
  const existing = await options.store.find(inboxPk(options.consumer, message.key));
  return existing && isLive(existing, toEpochSeconds(options.now())) ? existing : undefined;
}

function acknowledgeDuplicate(
  message: InboxMessage<unknown>,
  payloadHash: string,
  existing: InboxEntry,
  options: ResolvedOptions,
): RecordOutcome {
  if (existing.payloadHash !== payloadHash) {
    throw new PayloadMismatchError(message.key, payloadHash, existing);
  }
  options.metrics?.addMetric(InboxMetric.Duplicates, 'Count', 1);
  options.logger.info('duplicate message acknowledged without effect', {
    consumer: options.consumer,
    ...loggedKey(message.key, options.logKeys),
    messageId: message.messageId,
    firstMessageId: existing.messageId,
    firstProcessedAt: existing.processedAt,
  });
  return { messageId: message.messageId, key: message.key, status: RecordStatus.Duplicate };
}
