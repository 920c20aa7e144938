import { createHash } from 'node:crypto';
import type { SQSMessageAttribute, SQSMessageAttributes } from 'aws-lambda';

/**
 * Message attributes as a test gives them: a string is a `String` attribute, any other
 * attribute is given in Lambda's shape (`{ dataType: 'Number', stringValue: '3' }`).
 *
 * @example
 * ```ts
 * const attributes: TestMessageAttributes = { eventId: 'e-1', amount: { dataType: 'Number', stringValue: '3' } };
 * ```
 * @public
 */
export type TestMessageAttributes = Readonly<Record<string, string | SQSMessageAttribute>>;

/**
 * Message attributes in Lambda's shape: each with its data type and value, and the list
 * members SQS reserves, empty.
 *
 * @example
 * ```ts
 * lambdaAttributes({ eventId: 'e-1' }).eventId; // => { stringValue: 'e-1', stringListValues: [], binaryListValues: [], dataType: 'String' }
 * ```
 */
export function lambdaAttributes(attributes: TestMessageAttributes): SQSMessageAttributes {
  return Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [
      name,
      typeof value === 'string'
        ? { stringValue: value, stringListValues: [], binaryListValues: [], dataType: 'String' }
        : { stringListValues: [], binaryListValues: [], ...value },
    ]),
  );
}

/**
 * SQS's digest of message attributes (`md5OfMessageAttributes`): by name, each name, data type
 * and value with its 4-byte big-endian length, the value after a transport byte (1 text, 2
 * binary).
 *
 * @example
 * ```ts
 * md5OfMessageAttributes(lambdaAttributes({ eventId: 'e-1' })); // 32 hex characters
 * ```
 */
export function md5OfMessageAttributes(attributes: SQSMessageAttributes): string {
  const hash = createHash('md5');
  const withLength = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    hash.update(length).update(bytes);
  };
  for (const name of Object.keys(attributes).sort()) {
    const { dataType, stringValue, binaryValue } = attributes[name] as SQSMessageAttribute;
    withLength(Buffer.from(name, 'utf8'));
    withLength(Buffer.from(dataType, 'utf8'));
    const binary = dataType.startsWith('Binary');
    hash.update(Buffer.from([binary ? 2 : 1]));
    withLength(Buffer.from((binary ? binaryValue : stringValue) ?? '', binary ? 'base64' : 'utf8'));
  }
  return hash.digest('hex');
}
