import type { InboxSpan, InboxTracer, SpanAttributeValue } from './InboxTracer.js';

type Attributes = Readonly<Record<string, SpanAttributeValue>>;

/** A span that records nothing: what a tracer that threw leaves the record with. */
const NO_SPAN: InboxSpan = {
  setAttributes: () => {},
  recordError: () => {},
  startChild: () => NO_SPAN,
  withActive: (work) => work(),
  traceparent: () => undefined,
  end: () => {},
};

/**
 * A tracer that never throws, as `guardLogger` is a logger that never throws: a failing tracer
 * must not fail the record it traces. A span it could not open is replaced by one that records
 * nothing, and the work given to `withActive` runs exactly once whatever the tracer does.
 *
 * @example
 * ```ts
 * const tracer = guardTracer(userTracer);
 * tracer.startSpan(start).end(); // never throws
 * ```
 */
export function guardTracer(tracer: InboxTracer): InboxTracer {
  return {
    startSpan: (start) => attempt(() => guardSpan(tracer.startSpan(start)), NO_SPAN),
  };
}

function guardSpan(span: InboxSpan): InboxSpan {
  return {
    setAttributes: (attributes: Attributes) => attempt(() => span.setAttributes(attributes)),
    recordError: (errorType: string) => attempt(() => span.recordError(errorType)),
    startChild: (name: string, attributes: Attributes) =>
      attempt(() => guardSpan(span.startChild(name, attributes)), NO_SPAN),
    withActive: <T>(work: () => T): T => {
      let settled: { readonly result: T } | { readonly error: unknown } | undefined;
      const once = () => {
        try {
          const result = work();
          settled = { result };
          return result;
        } catch (error) {
          settled = { error };
          throw error;
        }
      };
      try {
        return span.withActive(once);
      } catch {
        if (settled === undefined) return work();
        if ('error' in settled) throw settled.error;
        return settled.result;
      }
    },
    traceparent: () => attempt(() => span.traceparent(), undefined),
    end: () => attempt(() => span.end()),
  };
}

function attempt<T>(call: () => T, fallback?: T): T {
  try {
    return call();
  } catch {
    return fallback as T;
  }
}
