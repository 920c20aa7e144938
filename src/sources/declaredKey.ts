import type { SQSMessageAttributes } from 'aws-lambda';
import { type MessageEnvelope, MessageSource } from './MessageSource.js';

/**
 * A key declared as data rather than code, so the construct can declare it and the function
 * read it from `INBOX_KEY`: a message attribute the publisher sets (SQS's, or SNS's in the
 * notification), or a field of the validated payload.
 *
 * @example
 * ```ts
 * const key: DeclaredKey = { from: 'attribute', name: 'eventId' };
 * ```
 */
export type DeclaredKey =
  | { readonly from: 'attribute'; readonly name: string }
  | { readonly from: 'field'; readonly path: string };

const ATTRIBUTE_NAME = /^[A-Za-z0-9_.-]{1,256}$/;
const FIELD_PATH = /^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/;

/**
 * The rule a declared key's name or path follows, for error messages.
 *
 * @example
 * ```ts
 * throw new Error(`key: ${DECLARED_KEY_RULE}`);
 * ```
 */
export const DECLARED_KEY_RULE =
  'attribute:<name> (a message attribute, [A-Za-z0-9_.-], at most 256) or field:<path> ' +
  '(a payload field, dot-separated names of [A-Za-z0-9_$-])';

/**
 * The text form of a declared key, as `INBOX_KEY` carries it.
 *
 * @example
 * ```ts
 * formatDeclaredKey({ from: 'field', path: 'order.id' }); // => 'field:order.id'
 * ```
 */
export function formatDeclaredKey(key: DeclaredKey): string {
  return key.from === 'attribute' ? `attribute:${key.name}` : `field:${key.path}`;
}

/**
 * Reads the text form of a declared key; undefined when it follows {@link DECLARED_KEY_RULE} not.
 *
 * @example
 * ```ts
 * parseDeclaredKey('attribute:eventId'); // => { from: 'attribute', name: 'eventId' }
 * ```
 */
export function parseDeclaredKey(text: string): DeclaredKey | undefined {
  const [from, ...rest] = text.split(':');
  const value = rest.join(':');
  if (from === 'attribute' && ATTRIBUTE_NAME.test(value)) return { from, name: value };
  if (from === 'field' && FIELD_PATH.test(value)) return { from, path: value };
  return undefined;
}

/**
 * What a declared key reads of a message: the payload, the SQS message attributes and the
 * envelope (a parsed message has them all).
 *
 * @example
 * ```ts
 * const key = keyFromDeclaration(declared)(parsedMessage satisfies DeclaredKeySource);
 * ```
 */
export interface DeclaredKeySource {
  readonly body: unknown;
  readonly messageAttributes: SQSMessageAttributes;
  readonly envelope: MessageEnvelope;
}

/**
 * The key function of a declared key. An attribute is read from the SQS message attributes,
 * then from the SNS notification's; a field from the validated payload, a string or a safe
 * integer (a larger number was rounded by `JSON.parse`). A message without it gets a
 * `KeyDerivationError`.
 *
 * @example
 * ```ts
 * const key = keyFromDeclaration({ from: 'field', path: 'orderId' }); // ({ body }) => body.orderId
 * ```
 */
export function keyFromDeclaration(key: DeclaredKey): (message: DeclaredKeySource) => string {
  if (key.from === 'attribute') {
    return (message) => {
      const sqs = message.messageAttributes[key.name]?.stringValue;
      const sns =
        message.envelope.kind === MessageSource.Sns
          ? message.envelope.messageAttributes[key.name]?.value
          : undefined;
      const value = sqs ?? sns;
      if (value === undefined) throw new Error(`no message attribute ${key.name}`);
      return value;
    };
  }
  const names = key.path.split('.');
  return ({ body }) => {
    let value: unknown = body;
    for (const name of names) {
      value =
        typeof value === 'object' && value !== null
          ? (value as Record<string, unknown>)[name]
          : undefined;
    }
    // Beyond 2^53 JSON.parse has already rounded the number: two ids could become one key.
    if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
    if (typeof value !== 'string') {
      throw new Error(`no string or safe integer at payload field ${key.path}`);
    }
    return value;
  };
}
