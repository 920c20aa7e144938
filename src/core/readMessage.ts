import type { SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { MAX_KEY_BYTES } from '../constants/values.js';
import { KeyDerivationError, MessageParseError, SchemaValidationError } from '../errors.js';
import {
  MessageSource,
  type SourceNotice,
  type UnwrappedRecord,
} from '../sources/MessageSource.js';
import { parseJsonOrText } from '../sources/readSnsNotification.js';
import { unwrapRecord } from '../sources/unwrapRecord.js';
import type { KeyAttributes } from './DeadLetterSink.js';
import { hashPayload } from './inboxEntry.js';
import { redriveUnsafeMessageIdKey } from './redriveUnsafeMessageIdKey.js';
import type { ResolvedOptions } from './resolveOptions.js';
import type { MessageIdentity } from './settleFailure.js';
import type { ParsedMessage } from './types.js';

/**
 * A record read as far as it goes: up to its key (or a notice), or to its permanent error,
 * with the identity known by then (an upstream key is known before the payload is parsed).
 *
 * @example
 * ```ts
 * const outcome = await readRecord(record, options);
 * if ('error' in outcome) return settleFailure(record, outcome.identity, outcome.error, options);
 * ```
 */
export type RecordRead =
  | { readonly read: ReadMessage | SourceNotice; readonly identity?: MessageIdentity }
  | { readonly error: unknown; readonly identity?: MessageIdentity };

/**
 * {@link readMessage}, its error and identity as a value: it never rejects, so a batch can read
 * every record up front, learn their keys, and settle each failure with its own record.
 *
 * @example
 * ```ts
 * const reads = records.map((record) => readRecord(record, options));
 * ```
 */
export async function readRecord(record: SQSRecord, options: ResolvedOptions): Promise<RecordRead> {
  let identity: MessageIdentity | undefined;
  try {
    const read = await readMessage(record, options, (key, payloadHashes) => {
      identity = { key, payloadHashes };
    });
    if ('notice' in read) return { read };
    const { key, keyAttributes } = read;
    return {
      read,
      identity: { key, payloadHashes: [read.payloadHash, read.bodyHash], keyAttributes },
    };
  } catch (error) {
    return { error, ...(identity === undefined ? {} : { identity }) };
  }
}

/**
 * A record read up to its key: the parsed and validated message, its key, and the hashes a
 * stored entry may carry for it — the payload's, and the whole body's (what entries written
 * before the source was declared hold).
 *
 * @example
 * ```ts
 * const { message, key, payloadHash } = readMessage.read;
 * ```
 */
export interface ReadMessage {
  readonly message: ParsedMessage<unknown>;
  readonly key: string;
  readonly payloadHash: string;
  readonly bodyHash: string;
  /**
   * The message attributes the key was read from, worked out when asked (a dead letter): those
   * the key function read, or all of them when it only tested some for presence.
   */
  readonly keyAttributes: () => KeyAttributes;
}

/**
 * Reads a record as its declared sources deliver it: unwraps the envelope, parses and
 * validates the payload, derives the key (the `key` option, or the upstream id). Throws the
 * record's permanent error (`EnvelopeMismatchError`, `MessageParseError`,
 * `SchemaValidationError`, `KeyDerivationError`); returns a {@link SourceNotice} for a record
 * that is no event (S3's test event). `onUpstreamKey` learns an upstream key as soon as it is
 * known, before the payload is parsed.
 *
 * @example
 * ```ts
 * const read = await readMessage(record, options);
 * if ('notice' in read) return acknowledge(read);
 * ```
 */
export async function readMessage(
  record: SQSRecord,
  options: ResolvedOptions,
  onUpstreamKey: (key: string, payloadHashes: readonly string[]) => void = () => {},
): Promise<ReadMessage | SourceNotice> {
  const unwrapped = unwrapRecord(record, options.sources);
  if ('notice' in unwrapped) return unwrapped;
  const payloadText =
    'text' in unwrapped.payload ? unwrapped.payload.text : JSON.stringify(unwrapped.payload.value);
  const payloadHash = hashPayload(payloadText);
  const bodyHash = hashPayload(record.body);
  // Keyed by the upstream, the key is known before the payload is parsed: should parsing or the
  // schema now refuse a message that committed before, the own-commit check still finds it.
  if (unwrapped.upstreamKey !== undefined && options.key === undefined) {
    onUpstreamKey(unwrapped.upstreamKey, [payloadHash, bodyHash]);
  }
  const value = await parsePayload(record, unwrapped, options);
  const message: ParsedMessage<unknown> = {
    body: options.schema ? await validate(record.messageId, value, options) : value,
    envelope: unwrapped.envelope,
    messageId: record.messageId,
    attributes: record.attributes,
    messageAttributes: record.messageAttributes ?? {},
    record,
  };
  const { key, keyAttributes } = deriveKey(message, unwrapped.upstreamKey, options);
  return { message, key, payloadHash, bodyHash, keyAttributes };
}

async function parsePayload(
  record: SQSRecord,
  unwrapped: UnwrappedRecord,
  options: ResolvedOptions,
): Promise<unknown> {
  if (!('text' in unwrapped.payload)) return unwrapped.payload.value;
  const text = unwrapped.payload.text;
  const kind = unwrapped.envelope.kind;
  const parser =
    options.parser ??
    (kind === MessageSource.Sns || kind === MessageSource.SnsRaw ? parseJsonOrText : JSON.parse);
  try {
    return await parser(text);
  } catch (error) {
    throw new MessageParseError(record.messageId, {
      parser: parser === JSON.parse ? 'json' : 'custom',
      error,
      bodyLength: text.length,
    });
  }
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

function deriveKey(
  message: ParsedMessage<unknown>,
  upstreamKey: string | undefined,
  options: ResolvedOptions,
): { key: string; keyAttributes: () => KeyAttributes } {
  const keyFunction = options.key;
  // An upstream id reads no attribute; a key function's reads are watched.
  const watched = keyFunction === undefined ? undefined : watchAttributes(message);
  let key: unknown = upstreamKey;
  if (keyFunction && watched) {
    try {
      key = keyFunction(watched.message);
    } catch (error) {
      throw new KeyDerivationError(message.messageId, undefined, error);
    }
  }
  if (typeof key !== 'string' || key.length === 0 || Buffer.byteLength(key) > MAX_KEY_BYTES) {
    throw new KeyDerivationError(message.messageId, key);
  }
  warnIfContentBasedKey(message, options);
  const derived = key;
  return {
    key,
    keyAttributes: () =>
      keyFunction && watched ? verifiedReads(message, watched.read(), keyFunction, derived) : [],
  };
}

/**
 * The attributes a key function read, checked: run again on a message holding only them, it
 * must give the same key. A key that only tested an attribute's presence (`in`,
 * `Object.hasOwn`), which no getter sees, gives another key or throws: then every attribute is
 * kept.
 */
function verifiedReads(
  message: ParsedMessage<unknown>,
  names: KeyAttributes,
  keyFunction: (message: ParsedMessage<unknown>) => unknown,
  key: string,
): KeyAttributes {
  const all = Object.keys(message.messageAttributes);
  if (names.length === all.length) return names;
  const only: SQSMessageAttributes = {};
  for (const name of names) {
    const value = message.messageAttributes[name];
    if (value !== undefined) only[name] = value;
  }
  const record = { ...message.record, messageAttributes: only };
  try {
    if (keyFunction({ ...message, messageAttributes: only, record }) === key) return names;
  } catch {
    // It needs what it no longer finds: keep every attribute.
  }
  return all;
}

/**
 * The message as the key function gets it, its SQS message attributes watched: a copy whose
 * values are read through getters, so that a dead-letter copy keeps first the attributes the key
 * was read from and stays redrivable. A key that lists or copies the attributes (`Object.entries`,
 * spreading, `JSON.stringify`) reads them all. Plain properties, not a proxy: cloning, spreading
 * and serialising work as on the record's own object.
 */
function watchAttributes(message: ParsedMessage<unknown>): {
  message: ParsedMessage<unknown>;
  read: () => KeyAttributes;
} {
  const names = new Set<string>();
  const attributes: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(message.messageAttributes)) {
    Object.defineProperty(attributes, name, {
      enumerable: true,
      configurable: true,
      get: () => {
        names.add(name);
        return value;
      },
    });
  }
  const record = { ...message.record, messageAttributes: attributes };
  return {
    message: { ...message, messageAttributes: attributes, record },
    read: () => [...names],
  };
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
