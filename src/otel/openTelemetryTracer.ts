import {
  type Attributes,
  type Context,
  context,
  isSpanContextValid,
  type Link,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type {
  InboxSpan,
  InboxTracer,
  SpanAttributeValue,
  SpanStart,
  TraceLink,
} from '../core/InboxTracer.js';

/**
 * Options of {@link openTelemetryTracer}.
 *
 * @example
 * ```ts
 * import { trace } from '@opentelemetry/api';
 * const options: OpenTelemetryTracerOptions = { tracer: trace.getTracer('ledger') };
 * ```
 * @public
 */
export interface OpenTelemetryTracerOptions {
  /**
   * The tracer to open spans with; default `trace.getTracer('sqs-inbox')` from the global
   * provider, which the ADOT layer (Application Signals) or your SDK set-up registers.
   */
  readonly tracer?: Tracer;
}

const KIND = { consumer: SpanKind.CONSUMER, producer: SpanKind.PRODUCER } as const;

/**
 * An `InboxTracer` on `@opentelemetry/api` (an optional peer: install it to use this entry).
 * Record spans are CONSUMER spans, children of the active context (the Lambda invocation span
 * of the ADOT layer or `@opentelemetry/instrumentation-aws-lambda`), linked to the producer's
 * context; step spans are their INTERNAL children; relayed messages get PRODUCER spans. An
 * error is recorded by its type only (`error.type`, status ERROR): its message may quote content.
 *
 * @example
 * ```ts
 * import { openTelemetryTracer } from 'sqs-inbox/otel';
 * const processor = createBatchProcessor(handler, {
 *   store, consumer: 'ledger', schema: PaymentSchema, key: ({ body }) => body.paymentId,
 *   observability: { tracer: openTelemetryTracer() },
 * });
 * ```
 * @public
 */
export function openTelemetryTracer(options: OpenTelemetryTracerOptions = {}): InboxTracer {
  const tracer = options.tracer ?? trace.getTracer('sqs-inbox');
  return {
    startSpan: (start: SpanStart) => {
      const span = tracer.startSpan(
        start.name,
        { kind: KIND[start.kind], attributes: start.attributes, links: start.links.map(toLink) },
        context.active(),
      );
      return adapt(tracer, span);
    },
  };
}

function toLink(link: TraceLink): Link {
  return {
    context: {
      traceId: link.traceId,
      spanId: link.spanId,
      traceFlags: link.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
      isRemote: true,
    },
    attributes: { 'sqs_inbox.link.carrier': link.carrier },
  };
}

function adapt(tracer: Tracer, span: Span): InboxSpan {
  const within = (): Context => trace.setSpan(context.active(), span);
  let ended = false;
  return {
    setAttributes: (attributes: Readonly<Record<string, SpanAttributeValue>>) => {
      span.setAttributes(attributes as Attributes);
    },
    recordError: (errorType: string) => {
      span.setAttribute('error.type', errorType);
      span.addEvent('exception', { 'exception.type': errorType });
      span.setStatus({ code: SpanStatusCode.ERROR });
    },
    startChild: (name, attributes) =>
      adapt(tracer, tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, within())),
    withActive: (work) => context.with(within(), work),
    traceparent: () => traceparentOf(span),
    end: () => {
      if (ended) return;
      ended = true;
      span.end();
    },
  };
}

/** The span's W3C `traceparent`, as the W3C propagator writes it; undefined for a non-recording span. */
function traceparentOf(span: Span): string | undefined {
  const spanContext = span.spanContext();
  if (!isSpanContextValid(spanContext)) return undefined;
  const flags = (spanContext.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0');
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}
