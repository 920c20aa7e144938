import { NotModelledError } from '../NotModelledError.js';

/** A message attribute as `SendMessage` carries it on the wire (a binary value in base64). */
export interface WireAttribute {
  readonly DataType?: string;
  readonly StringValue?: string;
  readonly BinaryValue?: string;
  readonly StringListValues?: unknown;
  readonly BinaryListValues?: unknown;
}

/** The `SendMessage` parameters the in-memory queues model. */
export interface SendInput {
  readonly QueueUrl?: string;
  readonly MessageBody?: string;
  readonly MessageAttributes?: Readonly<Record<string, WireAttribute>>;
  readonly MessageSystemAttributes?: Readonly<Record<string, WireAttribute>>;
  readonly MessageGroupId?: string;
  readonly MessageDeduplicationId?: string;
  readonly DelaySeconds?: number;
}

/** A refusal as SQS answers it: the JSON shape, the query-compatible code, the message. */
export interface SqsRefusal {
  readonly shape: string;
  readonly code: string;
  readonly message: string;
}

const MODELLED: readonly (keyof SendInput)[] = [
  'QueueUrl',
  'MessageBody',
  'MessageAttributes',
  'MessageSystemAttributes',
  'MessageGroupId',
  'MessageDeduplicationId',
  'DelaySeconds',
];
/** SQS's quota: a message's body and attributes together (the queue's default maximum). */
export const MAX_MESSAGE_BYTES = 1_048_576;
/** SQS's quota of message attributes per message. */
export const MAX_MESSAGE_ATTRIBUTES = 10;
const MAX_DELAY_SECONDS = 900;
/** The system attribute SQS takes on `SendMessage` (the only one). */
const TRACE_HEADER = 'AWSTraceHeader';
/** What SQS refuses in a body: anything outside XML 1.0's characters (a lone surrogate too). */
const DISALLOWED_CHARACTER = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const TYPE_PREFIXES = ['String', 'Number', 'Binary'];
/** A message group or deduplication id: 1–128 alphanumerics and punctuation (ASCII 0x21–0x7E). */
const FIFO_ID = /^[\x21-\x7E]{1,128}$/;

/**
 * Checks a `SendMessage` as SQS does before taking it (API reference, `SendMessage`, and the
 * developer guide's message quotas): a body of allowed characters, at most ten attributes each
 * with a `DataType` of a known prefix and a string value of the body's characters, body and
 * attributes within 1 MiB together (SQS counts each attribute's name, type and value), a
 * `DelaySeconds` of 0–900 and none on a FIFO queue; a FIFO queue needs a message group and a
 * deduplication id (no content-based deduplication here), a standard queue refuses a
 * deduplication id and takes a group (fair queues); a group and a deduplication id are 1–128
 * alphanumerics and punctuation. Returns SQS's refusal,
 * or `undefined` when SQS takes the message. A parameter it does not model throws
 * `NotModelledError` naming it. The wording is AWS's where it is known; MiniStack, which the
 * integration tier runs, checks fewer of these (see `test/integration/inMemoryQueues.test.ts`).
 *
 * @example
 * ```ts
 * const refusal = checkSendMessage(input, queueUrl.endsWith('.fifo'));
 * if (refusal !== undefined) return sqsError(refusal);
 * ```
 */
export function checkSendMessage(input: SendInput, fifo: boolean): SqsRefusal | undefined {
  checkModelled(input);
  return (
    checkBody(input.MessageBody) ??
    checkAttributes(input.MessageAttributes ?? {}) ??
    checkSize(input) ??
    checkDelay(input.DelaySeconds, fifo) ??
    (fifo ? checkFifo(input) : checkStandard(input)) ??
    checkFifoId('MessageGroupId', input.MessageGroupId) ??
    checkFifoId('MessageDeduplicationId', input.MessageDeduplicationId)
  );
}

function checkModelled(input: SendInput): void {
  const unmodelled = Object.keys(input).filter(
    (name) => !(MODELLED as readonly string[]).includes(name),
  );
  const system = Object.keys(input.MessageSystemAttributes ?? {}).filter(
    (name) => name !== TRACE_HEADER,
  );
  const lists = Object.entries(input.MessageAttributes ?? {}).flatMap(([name, value]) =>
    value.StringListValues !== undefined || value.BinaryListValues !== undefined
      ? [`list values of MessageAttributes.${name}`]
      : [],
  );
  const features = [
    ...unmodelled,
    ...system.map((name) => `MessageSystemAttributes.${name}`),
    ...lists,
  ];
  if (features.length > 0) {
    throw new NotModelledError('SendMessage', features.join(', '), MODELLED, 'SQS');
  }
}

function checkBody(body: string | undefined): SqsRefusal | undefined {
  if (body === undefined || body === '') {
    return refusal('MissingParameter', 'The request must contain the parameter MessageBody.');
  }
  const hex = disallowedCharacter(body);
  if (hex === undefined) return undefined;
  return {
    shape: 'InvalidMessageContents',
    code: 'InvalidMessageContents',
    message: `Invalid binary character '#x${hex}' was found in the message body, the set of allowed characters is #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].`,
  };
}

/** The first character of a text outside SQS's set, in hex (`0`, `FFFE`), or `undefined`. */
function disallowedCharacter(text: string): string | undefined {
  const found = DISALLOWED_CHARACTER.exec(text)?.[0];
  return found === undefined ? undefined : (found.codePointAt(0) ?? 0).toString(16).toUpperCase();
}

/**
 * A string attribute's value (`String` and `Number` types) has the body's characters. SQS's
 * words for this refusal are not documented: these are the model's, in the body's form.
 */
function checkAttributeValue(name: string, value: WireAttribute): SqsRefusal | undefined {
  const hex = value.StringValue === undefined ? undefined : disallowedCharacter(value.StringValue);
  if (hex === undefined) return undefined;
  return invalid(
    `Invalid binary character '#x${hex}' was found in the value of message attribute '${name}', the set of allowed characters is #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].`,
  );
}

/** A message group or deduplication id, where given: 1–128 alphanumerics and punctuation. */
function checkFifoId(
  parameter: 'MessageGroupId' | 'MessageDeduplicationId',
  id: string | undefined,
): SqsRefusal | undefined {
  if (id === undefined || FIFO_ID.test(id)) return undefined;
  return invalid(
    `Value ${id} for parameter ${parameter} is invalid. Reason: ${parameter} can only include alphanumeric and punctuation characters. 1 to 128 in length.`,
  );
}

function checkAttributes(
  attributes: Readonly<Record<string, WireAttribute>>,
): SqsRefusal | undefined {
  const count = Object.keys(attributes).length;
  if (count > MAX_MESSAGE_ATTRIBUTES) {
    return invalid(
      `Number of message attributes [${count}] exceeds the allowed maximum [${MAX_MESSAGE_ATTRIBUTES}].`,
    );
  }
  for (const [name, value] of Object.entries(attributes)) {
    const type = value.DataType ?? '';
    if (type === '') {
      return invalid(
        `The message attribute '${name}' must contain non-empty message attribute type.`,
      );
    }
    if (!TYPE_PREFIXES.includes(type.split('.')[0] ?? '')) {
      return invalid(
        `The type of message (user) attribute '${name}' is invalid. You must use only the following supported type prefixes: Binary, Number, String.`,
      );
    }
    const refused = checkAttributeValue(name, value);
    if (refused !== undefined) return refused;
  }
  return undefined;
}

function checkSize(input: SendInput): SqsRefusal | undefined {
  if (sqsCountedBytes(input) <= MAX_MESSAGE_BYTES) return undefined;
  return invalid(
    `One or more parameters are invalid. Reason: Message must be shorter than ${MAX_MESSAGE_BYTES} bytes.`,
  );
}

/**
 * A message's size as SQS counts it against the limit: the body's UTF-8 bytes and, for each
 * attribute, its name, its type and its value (a binary value's decoded bytes). The
 * `AWSTraceHeader` system attribute counts against neither the size nor the attribute quota.
 *
 * @example
 * ```ts
 * sqsCountedBytes({ MessageBody: 'ab', MessageAttributes: { k: { DataType: 'String', StringValue: 'v' } } }) // => 10
 * ```
 */
export function sqsCountedBytes(input: SendInput): number {
  let bytes = Buffer.byteLength(input.MessageBody ?? '', 'utf8');
  for (const [name, value] of Object.entries(input.MessageAttributes ?? {})) {
    bytes += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(value.DataType ?? '', 'utf8');
    bytes += Buffer.byteLength(value.StringValue ?? '', 'utf8');
    bytes += Buffer.byteLength(value.BinaryValue ?? '', 'base64');
  }
  return bytes;
}

function checkDelay(delaySeconds: number | undefined, fifo: boolean): SqsRefusal | undefined {
  if (delaySeconds === undefined) return undefined;
  // MiniStack takes 0 on a FIFO queue (as captured from AWS); any other per-message delay there
  // is refused: a FIFO queue has only its queue-level delay.
  if (fifo && delaySeconds !== 0) {
    return invalid(
      `Value ${delaySeconds} for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type.`,
    );
  }
  if (Number.isInteger(delaySeconds) && delaySeconds >= 0 && delaySeconds <= MAX_DELAY_SECONDS) {
    return undefined;
  }
  return invalid(
    `Value ${delaySeconds} for parameter DelaySeconds is invalid. Reason: Must be >= 0 and <= ${MAX_DELAY_SECONDS}, if provided.`,
  );
}

function checkFifo(input: SendInput): SqsRefusal | undefined {
  if (!input.MessageGroupId) {
    return refusal('MissingParameter', 'The request must contain the parameter MessageGroupId.');
  }
  if (!input.MessageDeduplicationId) {
    return invalid(
      'The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
    );
  }
  return undefined;
}

/**
 * A standard queue takes a message group (fair queues) but no deduplication id. MiniStack takes
 * one and ignores it; AWS refuses it, as it refuses a per-message delay on a FIFO queue.
 */
function checkStandard(input: SendInput): SqsRefusal | undefined {
  if (input.MessageDeduplicationId === undefined) return undefined;
  return invalid(
    `Value ${input.MessageDeduplicationId} for parameter MessageDeduplicationId is invalid. Reason: The request include parameter that is not valid for this queue type.`,
  );
}

function invalid(message: string): SqsRefusal {
  return refusal('InvalidParameterValue', message);
}

function refusal(shape: string, message: string): SqsRefusal {
  return { shape, code: shape, message };
}
