import { randomBytes } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { expect } from 'vitest';
import { openTelemetryTracer } from '../../src/otel/index.js';

/**
 * `observability.tracer` through the `sqs-inbox/otel` adapter into the SDK's in-memory
 * exporter. Only ended spans reach the exporter, so a span found there is a span ended.
 */
export function inMemoryTracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return {
    exporter,
    tracer: openTelemetryTracer({ tracer: provider.getTracer('sqs-inbox-test') }),
    /** The CONSUMER spans ended so far: one per record processed. */
    recordSpans: () =>
      exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.CONSUMER),
  };
}

/** The one span of the message with this SQS message id. */
export function spanOf(spans: readonly ReadableSpan[], messageId: string): ReadableSpan {
  const found = spans.filter((span) => span.attributes['messaging.message.id'] === messageId);
  expect(found).toHaveLength(1);
  return found[0] as ReadableSpan;
}

/** Every text a span shows: its name, attributes, its links' and events' attributes, status. */
export function everySpanValue(spans: readonly ReadableSpan[]): string[] {
  return spans.flatMap((span) => [
    span.name,
    ...Object.values(span.attributes).map(String),
    ...span.links.flatMap((link) => Object.values(link.attributes ?? {}).map(String)),
    ...span.events.flatMap((event) => Object.values(event.attributes ?? {}).map(String)),
    span.status.message ?? '',
  ]);
}

/**
 * A fresh producer context, written both ways: as an X-Ray trace header (what an
 * X-Ray-instrumented producer sets as `AWSTraceHeader`) and as the W3C ids it stands for — the
 * root's digits after `1-`, without the dash (docs.aws.amazon.com/xray/latest/devguide/
 * xray-concepts.html, "Tracing header").
 */
export function producerContext() {
  const epoch = randomBytes(4).toString('hex');
  const unique = randomBytes(12).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return {
    xRayHeader: `Root=1-${epoch}-${unique};Parent=${spanId};Sampled=1`,
    traceparent: `00-${epoch}${unique}-${spanId}-01`,
    traceId: `${epoch}${unique}`,
    spanId,
  };
}
