import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import {
  DEAD_LETTER_ATTRIBUTE_PREFIX,
  DeadLetterAttribute,
  OutboxMessageIdField,
} from '../constants/values.js';
import type { DeadLetterNeeds } from '../core/DeadLetterSink.js';
import { keyHash, type LoggedKey } from '../core/loggedKey.js';
import { attributeText } from './attributeText.js';

/** SQS's limit of message attributes per message. */
const MAX_MESSAGE_ATTRIBUTES = 10;
const MAX_ERROR_MESSAGE_BYTES = 1024;
const MAX_ATTRIBUTE_BYTES = 1024;

type Attribute = readonly [name: string, value: MessageAttributeValue];
type Attributes = Record<string, MessageAttributeValue>;

/** Who failed and why, and what a redrive of the message needs. */
export interface DeadLetterFailure {
  readonly error: unknown;
  readonly consumer: string;
  readonly key: LoggedKey | undefined;
  readonly needs: DeadLetterNeeds | undefined;
}

/**
 * The message attributes of a dead-letter copy, within SQS's ten, most complete first; each
 * later one carries fewer of the inbox's annotations, for a DLQ that refuses the one before as
 * too large (SQS counts every attribute's name, type and value with the body). In every copy, in
 * this order:
 * 1. `inbox.error`, the reason;
 * 2. the message's own attributes its key was read from, and its outbox id: without them a
 *    redriven copy could not be keyed again (when more than fit, the key itself follows, in
 *    full, whatever `logKeys` says: the copy is the message, which holds it anyway);
 * 3. `inbox.key` or `inbox.keyHash`, `inbox.consumer`, `inbox.originalMessageId`,
 *    `inbox.sourceQueueArn`: where a redrive sends it and how it finds its entry;
 * 4. the message's other attributes, in name order;
 * 5. `inbox.errorMessage`.
 * The second copy drops the error message and carries the key by its hash; the third keeps only
 * the reason and the message's own attributes.
 *
 * @example
 * ```ts
 * for (const attributes of deadLetterCopies(record, failure)) await trySend(attributes);
 * ```
 */
export function deadLetterCopies(record: SQSRecord, failure: DeadLetterFailure): Attributes[] {
  const { needed, others } = originalAttributes(record, failure.needs);
  const reason = text(DeadLetterAttribute.Error, errorName(failure.error));
  const room = MAX_MESSAGE_ATTRIBUTES - 1;
  if (needed.length > room && failure.needs !== undefined) {
    const full = text(DeadLetterAttribute.Key, failure.needs.key);
    return [Object.fromEntries([reason, ...needed.slice(0, room - 1), full])];
  }
  const loggedKey = keyAttribute(failure.key);
  const hashedKey = keyAttribute(failure.key, true);
  const whereFrom = [
    text(DeadLetterAttribute.Consumer, failure.consumer),
    text(DeadLetterAttribute.OriginalMessageId, record.messageId),
    ...(record.eventSourceARN
      ? [text(DeadLetterAttribute.SourceQueueArn, record.eventSourceARN)]
      : []),
  ];
  const copies = [
    [reason, ...needed, ...loggedKey, ...whereFrom, ...others, errorMessage(failure.error)],
    [reason, ...needed, ...hashedKey, ...whereFrom, ...others],
    [reason, ...needed, ...others],
  ].map((copy) => Object.fromEntries(copy.slice(0, MAX_MESSAGE_ATTRIBUTES)));
  return copies.filter((copy, n) => n === 0 || !sameNames(copy, copies[n - 1] ?? {}));
}

/**
 * The record's own attributes (never a former dead letter's `inbox.*` ones): those its key was
 * read from and its outbox id, then the others, each in name order.
 */
function originalAttributes(
  record: SQSRecord,
  needs: DeadLetterNeeds | undefined,
): { needed: Attribute[]; others: Attribute[] } {
  const own = Object.keys(record.messageAttributes ?? {})
    .filter((name) => !name.startsWith(DEAD_LETTER_ATTRIBUTE_PREFIX))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const keyRead = needs?.keyAttributes ?? [];
  const isNeeded = (name: string) =>
    name === OutboxMessageIdField.Attribute || keyRead.includes(name);
  const first = (name: string) => (name === OutboxMessageIdField.Attribute ? 0 : 1);
  const needed = own.filter(isNeeded).sort((a, b) => first(a) - first(b));
  return {
    needed: copied(record, needed),
    others: copied(
      record,
      own.filter((name) => !isNeeded(name)),
    ),
  };
}

function copied(record: SQSRecord, names: readonly string[]): Attribute[] {
  return names.flatMap((name) => {
    const value = record.messageAttributes[name];
    if (value === undefined) return [];
    const attribute: MessageAttributeValue = {
      DataType: value.dataType,
      ...(value.stringValue !== undefined ? { StringValue: value.stringValue } : {}),
      ...(value.binaryValue !== undefined
        ? { BinaryValue: Buffer.from(value.binaryValue, 'base64') }
        : {}),
    };
    return [[name, attribute] as const];
  });
}

function keyAttribute(key: LoggedKey | undefined, hashed = false): Attribute[] {
  if (key === undefined) return [];
  if ('keyHash' in key) return [text(DeadLetterAttribute.KeyHash, key.keyHash)];
  return hashed
    ? [text(DeadLetterAttribute.KeyHash, keyHash(key.key))]
    : [text(DeadLetterAttribute.Key, key.key)];
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : 'Error';
}

/** A thrown non-Error (a string, an HTTP response) by its type: its text may be content. */
function errorMessage(error: unknown): Attribute {
  const message =
    error instanceof Error ? error.message : `the handler threw a ${typeof error}, not an Error`;
  return text(DeadLetterAttribute.ErrorMessage, message, MAX_ERROR_MESSAGE_BYTES);
}

function text(name: string, value: string, maxBytes = MAX_ATTRIBUTE_BYTES): Attribute {
  return [name, { DataType: 'String', StringValue: attributeText(value, maxBytes) || '(none)' }];
}

function sameNames(a: Attributes, b: Attributes): boolean {
  return Object.keys(a).join('\n') === Object.keys(b).join('\n');
}
