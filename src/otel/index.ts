/**
 * `sqs-inbox/otel`: the OpenTelemetry adapter of `observability.tracer`. It imports
 * `@opentelemetry/api` (an optional peer dependency); the rest of the package never does, so a
 * processor without a tracer loads no OpenTelemetry code.
 *
 * @module sqs-inbox/otel
 */

export type {
  InboxSpan,
  InboxTracer,
  SpanAttributeValue,
  SpanStart,
  TraceLink,
} from '../core/InboxTracer.js';
export {
  type OpenTelemetryTracerOptions,
  openTelemetryTracer,
} from './openTelemetryTracer.js';
