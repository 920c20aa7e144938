import type { SQSRecord } from 'aws-lambda';

/**
 * Where a consumer's messages come from, as the `sources` option and the construct declare it.
 * Each kind tells the library how to read the SQS body: as is (`Sqs`, `SnsRaw`), or as an
 * envelope whose payload goes to the parser and schema (`Sns`, `EventBridge`, `S3`).
 *
 * @example
 * ```ts
 * createBatchProcessor(handler, {
 *   store, consumer: 'ledger', schema: PaymentSchema, sources: [MessageSource.EventBridge],
 * });
 * ```
 * @public
 */
export const MessageSource = {
  /** Producers call `SendMessage`: the body is the payload. The `key` option is required. */
  Sqs: 'sqs',
  /** An SNS subscription with raw message delivery off: the body is SNS's JSON notification. */
  Sns: 'sns',
  /** An SNS subscription with raw message delivery: the body is the published message as is. */
  SnsRaw: 'sns-raw',
  /** An EventBridge rule with the queue as its target: the body is the event. */
  EventBridge: 'eventbridge',
  /** S3 event notifications: the body is `{ Records: [...] }`, or the `s3:TestEvent`. */
  S3: 's3',
  /**
   * An outbox relay (sqs-inbox's, or any sender keeping the contract) sends to the queue, or to
   * an SNS topic delivering raw: the body is the payload, and the message attribute
   * `outbox.messageId` the default key, the same on every send of the message. An EventBridge
   * pipe (`OutboxPipe`) sets no attribute: its body is the outbox item's DynamoDB stream record,
   * whose one message (`dynamodb.NewImage.messages.L[0].M`) gives the id (`id.S`) and the
   * payload text (`body.S`). Its earlier body `{ "outboxMessageId", "body" }` is still read, for
   * one release.
   */
  Outbox: 'outbox',
} as const;
/**
 * One of the values of `MessageSource`.
 * @public
 */
export type MessageSource = (typeof MessageSource)[keyof typeof MessageSource];

/**
 * The sources whose body carries an upstream id that serves as the default key.
 *
 * @example
 * ```ts
 * SOURCES_WITH_UPSTREAM_ID.includes(MessageSource.SnsRaw); // => false: raw delivery strips the id
 * ```
 */
export const SOURCES_WITH_UPSTREAM_ID: readonly MessageSource[] = [
  MessageSource.Sns,
  MessageSource.EventBridge,
  MessageSource.S3,
  MessageSource.Outbox,
];

/**
 * An SNS message attribute as the notification carries it.
 *
 * @example
 * ```ts
 * const attribute: SnsMessageAttribute = { type: 'String', value: 'e-1' };
 * ```
 * @public
 */
export interface SnsMessageAttribute {
  /** The attribute's data type as SNS names it: `String`, `String.Array`, `Number` or `Binary`. */
  readonly type: string;
  /** Its value as text: a `String.Array` as its JSON text, a `Binary` base64-encoded. */
  readonly value: string;
}

/**
 * What the SNS notification said besides its `Message`.
 *
 * @example
 * ```ts
 * if (message.envelope.kind === MessageSource.Sns) console.log(message.envelope.topicArn);
 * ```
 * @public
 */
export interface SnsEnvelope {
  /** Tells this envelope from the others of a {@link MessageEnvelope}: always `sns`. */
  readonly kind: typeof MessageSource.Sns;
  /** SNS's id of the publish: the same on every delivery retry, and the default key. */
  readonly messageId: string;
  /** The ARN of the topic the message was published to. */
  readonly topicArn: string;
  /** When SNS accepted the publish (ISO 8601); empty if the notification has no `Timestamp`. */
  readonly timestamp: string;
  /** The `Subject` the publisher gave; `undefined` when it gave none. */
  readonly subject: string | undefined;
  /** FIFO topics: the publish's sequence number, where SNS sends it. */
  readonly sequenceNumber: string | undefined;
  /**
   * The publish's message attributes by name; empty when it had none. A message an outbox
   * relay published carries its outbox id here as `outbox.messageId`.
   */
  readonly messageAttributes: Readonly<Record<string, SnsMessageAttribute>>;
}

/**
 * What the EventBridge event said besides its `detail`.
 *
 * @example
 * ```ts
 * if (message.envelope.kind === MessageSource.EventBridge) {
 *   console.log(`${message.envelope.detailType} from ${message.envelope.source}`);
 * }
 * ```
 * @public
 */
export interface EventBridgeEnvelope {
  /** Tells this envelope from the others of a {@link MessageEnvelope}: always `eventbridge`. */
  readonly kind: typeof MessageSource.EventBridge;
  /** The event's id: the same on every target retry, and the default key. */
  readonly id: string;
  /** The event's `source`: who emitted it (`shop.orders`, `aws.s3`). */
  readonly source: string;
  /** The event's `detail-type`: what happened (`OrderPlaced`). */
  readonly detailType: string;
  /** When the event happened (ISO 8601). */
  readonly time: string;
  /** The 12-digit id of the AWS account the event came from. */
  readonly account: string;
  /** The AWS Region the event came from (`eu-west-1`). */
  readonly region: string;
  /** The ARNs of the resources the event is about, as its sender listed them; often empty. */
  readonly resources: readonly string[];
  /** The version of EventBridge's event envelope: `0` in every event so far. */
  readonly version: string;
}

/**
 * One S3 object event of a notification, with the object key decoded.
 *
 * @example
 * ```ts
 * const object: S3ObjectEvent = {
 *   eventName: 'ObjectCreated:Put', eventTime: '2025-01-01T12:00:00.000Z', bucket: 'uploads',
 *   key: 'a b.csv', size: 1024, eTag: '0123456789abcdef', versionId: undefined, sequencer: '0A1B',
 * };
 * ```
 * @public
 */
export interface S3ObjectEvent {
  /** What happened to the object, as S3 names it: `ObjectCreated:Put`, `ObjectRemoved:Delete`… */
  readonly eventName: string;
  /** When S3 finished the request that caused the event (ISO 8601); `undefined` if not sent. */
  readonly eventTime: string | undefined;
  /** The bucket's name. */
  readonly bucket: string;
  /** The object key, URL-decoded (S3 sends `a+b%2Bc` for `a b+c`). */
  readonly key: string;
  /** The object's size in bytes; `undefined` on events that carry none (a deletion). */
  readonly size: number | undefined;
  /** The object's ETag; `undefined` on events that carry none (a deletion). */
  readonly eTag: string | undefined;
  /** The object's version, in a bucket with versioning; `undefined` otherwise. */
  readonly versionId: string | undefined;
  /** Orders the events of one object key; absent on some event types. */
  readonly sequencer: string | undefined;
}

/**
 * What the S3 notification said, with object keys decoded; the body has the records as sent.
 *
 * @example
 * ```ts
 * if (message.envelope.kind === MessageSource.S3) for (const o of message.envelope.objects) console.log(o.key);
 * ```
 * @public
 */
export interface S3Envelope {
  /** Tells this envelope from the others of a {@link MessageEnvelope}: always `s3`. */
  readonly kind: typeof MessageSource.S3;
  /** One per record of the notification, in the order S3 sent them. */
  readonly objects: readonly S3ObjectEvent[];
}

/**
 * What a consumer's `message.envelope` says of a message that came through an outbox (a relay,
 * an SNS topic delivering raw, an `OutboxPipe`): its outbox id, the same on every send. Not to
 * be confused with `OutgoingMessageWithoutContent` (`sqs-inbox/relay`), the relay's side.
 *
 * @example
 * ```ts
 * if (message.envelope.kind === MessageSource.Outbox) console.log(message.envelope.messageId);
 * ```
 * @public
 */
export interface OutboxEnvelope {
  /** Tells this envelope from the others of a {@link MessageEnvelope}: always `outbox`. */
  readonly kind: typeof MessageSource.Outbox;
  /** The `outbox.messageId` attribute (or the id in a piped record): the default key (as `outbox:<id>`). */
  readonly messageId: string;
}

/**
 * Where a message came from and what its envelope said. `kind` tells which.
 *
 * @example
 * ```ts
 * function origin(envelope: MessageEnvelope): string {
 *   switch (envelope.kind) {
 *     case 'sns': return envelope.topicArn;
 *     case 'eventbridge': return envelope.source;
 *     default: return envelope.kind;
 *   }
 * }
 * ```
 * @public
 */
export type MessageEnvelope =
  | { readonly kind: typeof MessageSource.Sqs }
  | { readonly kind: typeof MessageSource.SnsRaw }
  | OutboxEnvelope
  | SnsEnvelope
  | EventBridgeEnvelope
  | S3Envelope;

/**
 * A record read according to its declared source: the payload for the parser (text) or the
 * schema (a value already parsed), the envelope, and the upstream id to key by.
 *
 * @example
 * ```ts
 * const unwrapped: UnwrappedRecord = { envelope: { kind: 'sqs' }, payload: { text: record.body } };
 * ```
 */
export interface UnwrappedRecord {
  readonly envelope: MessageEnvelope;
  /** Text for the parser (SQS, SNS), or a value parsed with the envelope (EventBridge, S3). */
  readonly payload: { readonly text: string } | { readonly value: unknown };
  /** The default key, from the envelope: absent for `sqs` and `sns-raw`. */
  readonly upstreamKey?: string;
}

/**
 * A record that is no event: acknowledged without running the handler (S3's `s3:TestEvent`).
 *
 * @example
 * ```ts
 * const notice: SourceNotice = { notice: 's3:TestEvent', record };
 * ```
 */
export interface SourceNotice {
  readonly notice: string;
  readonly record: SQSRecord;
}
