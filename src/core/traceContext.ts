import type { SQSRecord } from 'aws-lambda';
import { TraceCarrier } from '../constants/values.js';
import { MessageSource } from '../sources/MessageSource.js';
import { isSnsMessage } from '../sources/readSnsNotification.js';
import type { TraceLink } from './InboxTracer.js';

// W3C Trace Context, version 00: https://www.w3.org/TR/trace-context/#traceparent-header
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
// X-Ray's trace header, `Root=1-<8 hex>-<24 hex>;Parent=<16 hex>;Sampled=<0|1|?>` in any order,
// other fields (Lineage…) allowed: docs.aws.amazon.com/xray/latest/devguide/xray-concepts.html
// ("Tracing header"). Its root is the W3C trace id split after 8 digits, as the OpenTelemetry
// X-Ray propagator maps it (npmjs.com/package/@opentelemetry/propagator-aws-xray).
const XRAY_ROOT = /^1-([0-9a-f]{8})-([0-9a-f]{24})$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const ALL_ZERO = /^0+$/;

/**
 * The context of a W3C `traceparent` value; undefined when it is not one (or all zero).
 *
 * @example
 * ```ts
 * parseTraceparent('00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01')?.sampled; // => true
 * ```
 */
export function parseTraceparent(value: unknown): TraceLink | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return undefined;
  const [, traceId = '', spanId = '', flags = '00'] = match;
  return checked({
    traceId,
    spanId,
    sampled: (Number.parseInt(flags, 16) & 1) === 1,
    carrier: TraceCarrier.TraceParent,
  });
}

/**
 * The context of an X-Ray trace header (`AWSTraceHeader`); undefined without a valid root and
 * parent (a header with a root only names a trace but no span to link to).
 *
 * @example
 * ```ts
 * parseXRayHeader('Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1');
 * ```
 */
export function parseXRayHeader(value: unknown): TraceLink | undefined {
  if (typeof value !== 'string') return undefined;
  const fields = new Map<string, string>();
  for (const part of value.split(';')) {
    const at = part.indexOf('=');
    if (at > 0) fields.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  const root = XRAY_ROOT.exec(fields.get('Root') ?? '');
  const spanId = fields.get('Parent') ?? '';
  if (!root || !SPAN_ID.test(spanId)) return undefined;
  return checked({
    traceId: `${root[1]}${root[2]}`,
    spanId,
    sampled: fields.get('Sampled') === '1',
    carrier: TraceCarrier.AwsTraceHeader,
  });
}

/**
 * A W3C `traceparent` as an X-Ray trace header, for SQS's `AWSTraceHeader` and EventBridge's
 * `TraceHeader`; undefined when it is not a valid `traceparent`.
 *
 * @example
 * ```ts
 * toXRayHeader('00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01');
 * // => 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1'
 * ```
 */
export function toXRayHeader(traceparent: string): string | undefined {
  const context = parseTraceparent(traceparent);
  if (context === undefined) return undefined;
  const { traceId, spanId, sampled } = context;
  return `Root=1-${traceId.slice(0, 8)}-${traceId.slice(8)};Parent=${spanId};Sampled=${sampled ? 1 : 0}`;
}

/**
 * The trace contexts an SQS record carries, to link its span to: the `AWSTraceHeader` system
 * attribute (set by X-Ray-instrumented producers and by the relay), then a `traceparent`
 * message attribute (OpenTelemetry's SQS/SNS instrumentation, SNS raw delivery), then — when
 * `sns` is among the consumer's sources — a `traceparent` inside an SNS notification's
 * `MessageAttributes` (raw delivery off: SNS puts the publisher's attributes in the envelope),
 * without repeating one context.
 *
 * @example
 * ```ts
 * const links = traceLinksOf(record, options.sources); // [] when the record carries none
 * ```
 */
export function traceLinksOf(
  record: SQSRecord,
  sources: readonly MessageSource[] = [],
): TraceLink[] {
  const attributes = record.attributes as unknown as Partial<Record<string, unknown>> | undefined;
  const messageAttributes = record.messageAttributes as
    | Partial<Record<string, { stringValue?: unknown }>>
    | undefined;
  const found = [
    parseXRayHeader(attributes?.[TraceCarrier.AwsTraceHeader]),
    parseTraceparent(messageAttributes?.[TraceCarrier.TraceParent]?.stringValue),
    sources.includes(MessageSource.Sns) ? parseTraceparent(envelopeTraceparent(record)) : undefined,
  ];
  const links: TraceLink[] = [];
  for (const link of found) {
    if (link === undefined) continue;
    if (links.some((seen) => seen.traceId === link.traceId && seen.spanId === link.spanId))
      continue;
    links.push(link);
  }
  return links;
}

// The span starts before the record is read, so the envelope is parsed here a second time;
// only a body that names the carrier at all is, to spare every other record the parse.
function envelopeTraceparent(record: SQSRecord): unknown {
  if (!record.body.includes(TraceCarrier.TraceParent)) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const notification = body as Record<string, unknown>;
  if (!isSnsMessage(notification)) return undefined;
  const attributes = notification.MessageAttributes as
    | Partial<Record<string, { Value?: unknown }>>
    | undefined;
  return attributes?.[TraceCarrier.TraceParent]?.Value;
}

function checked(link: TraceLink): TraceLink | undefined {
  return ALL_ZERO.test(link.traceId) || ALL_ZERO.test(link.spanId) ? undefined : link;
}
