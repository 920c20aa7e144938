/**
 * A trace context a message carried, in W3C form: what a record span links to. Built from the
 * SQS system attribute `AWSTraceHeader` (X-Ray's `Root=1-…;Parent=…;Sampled=…`) or a
 * `traceparent` message attribute.
 *
 * @example
 * ```ts
 * const link: TraceLink = {
 *   traceId: '5759e988bd862e3fe1be46a994272793', spanId: '53995c3f42cd8ad8',
 *   sampled: true, carrier: 'traceparent',
 * };
 * ```
 * @public
 */
export interface TraceLink {
  /** 32 lowercase hex digits, not all zero. */
  readonly traceId: string;
  /** 16 lowercase hex digits, not all zero. */
  readonly spanId: string;
  /** Whether the producer sampled its trace. */
  readonly sampled: boolean;
  /** Where the context came from: `AWSTraceHeader` or `traceparent`. */
  readonly carrier: string;
}

/**
 * A span attribute's value: what OpenTelemetry and most tracers accept.
 *
 * @example
 * ```ts
 * const value: SpanAttributeValue = 3;
 * ```
 * @public
 */
export type SpanAttributeValue = string | number | boolean;

/**
 * What the library asks a tracer to open a record's span with. The attributes follow the
 * OpenTelemetry messaging conventions (`messaging.system`, `messaging.operation.type`,
 * `messaging.message.id`, `messaging.destination.name`) plus the library's own under
 * `sqs_inbox.*`; none carries a key or a body.
 *
 * @example
 * ```ts
 * declare const tracer: InboxTracer;
 * // ---cut---
 * tracer.startSpan({ name: 'process orders', kind: 'consumer', attributes: {}, links: [] });
 * ```
 * @public
 */
export interface SpanStart {
  /** `process <queue>` for a record, `send <destination>` for a relayed message. */
  readonly name: string;
  /** `consumer` for a record, `producer` for a relayed message. */
  readonly kind: 'consumer' | 'producer';
  /** The span's attributes as it opens (the outcome and counts are set as it ends). */
  readonly attributes: Readonly<Record<string, SpanAttributeValue>>;
  /** The contexts the message carried: the producer's trace, linked, never made the parent. */
  readonly links: readonly TraceLink[];
}

/**
 * One span, as the library drives it: attributes set as the record goes, a child per step, the
 * error's type recorded (never its message, which may quote content), ended once.
 *
 * @example
 * ```ts
 * declare const tracer: InboxTracer;
 * declare const start: SpanStart;
 * // ---cut---
 * const span = tracer.startSpan(start);
 * span.setAttributes({ 'sqs_inbox.outcome': 'processed' });
 * span.end();
 * ```
 * @public
 */
export interface InboxSpan {
  /** Adds or replaces attributes. */
  setAttributes(attributes: Readonly<Record<string, SpanAttributeValue>>): void;
  /** Marks the span failed with the error's class name (`error.type`). */
  recordError(errorType: string): void;
  /** Opens a child span (a step), its parent this one. */
  startChild(name: string, attributes: Readonly<Record<string, SpanAttributeValue>>): InboxSpan;
  /**
   * Runs `work` with this span as the active one, so that spans the work opens (the AWS SDK's,
   * the handler's own) are its children.
   */
  withActive<T>(work: () => T): T;
  /** This span's W3C `traceparent`, carried across the outbox hop; undefined without a valid context. */
  traceparent(): string | undefined;
  /** Ends the span; a second call does nothing. */
  end(): void;
}

/**
 * An optional tracer (`observability.tracer`): one span per record, a child per step. The
 * library depends on no tracing package; `openTelemetryTracer()` from `sqs-inbox/otel` is the
 * adapter for `@opentelemetry/api` (ADOT, Application Signals, Honeycomb, Datadog…).
 *
 * @example
 * ```ts
 * import { openTelemetryTracer } from 'sqs-inbox/otel';
 * const processor = createBatchProcessor(handler, {
 *   store, consumer: 'ledger', schema: PaymentSchema, key: ({ body }) => body.eventId,
 *   observability: { tracer: openTelemetryTracer() },
 * });
 * ```
 * @public
 */
export interface InboxTracer {
  /** Opens a span: a record's (`consumer`) or a relayed message's (`producer`). */
  startSpan(start: SpanStart): InboxSpan;
}
