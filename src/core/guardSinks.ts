import type { InboxLogger, InboxMetrics } from './types.js';

/**
 * A logger that never throws: a failing logger (a value it cannot serialize, a broken
 * transport) must not fail the record being logged, let alone the batch. The failure is
 * reported on stderr with the library's own message text only.
 *
 * @example
 * ```ts
 * const logger = guardLogger(userLogger);
 * logger.error('message failed', { error: circularObject }); // never throws
 * ```
 */
export function guardLogger(logger: InboxLogger): InboxLogger {
  const guarded =
    (level: keyof InboxLogger): InboxLogger[keyof InboxLogger] =>
    (message, ...extras) => {
      const failed = (error: unknown) =>
        reportSinkFailure(`the logger threw while logging "${message}"`, error);
      try {
        catchRejection(logger[level](message, ...extras), failed);
      } catch (error) {
        failed(error);
      }
    };
  return {
    debug: guarded('debug'),
    info: guarded('info'),
    warn: guarded('warn'),
    error: guarded('error'),
  };
}

/**
 * A metrics sink that never throws, for the same reason as {@link guardLogger}.
 *
 * @example
 * ```ts
 * guardMetrics(metrics).addMetric('InboxProcessed', 'Count', 1); // never throws
 * ```
 */
export function guardMetrics(metrics: InboxMetrics): InboxMetrics {
  return {
    addMetric: (name, unit, value) => {
      const failed = (error: unknown) =>
        reportSinkFailure(`the metrics sink threw on ${name}`, error);
      try {
        catchRejection(metrics.addMetric(name, unit, value), failed);
      } catch (error) {
        failed(error);
      }
    },
  };
}

/**
 * A sink's flush that never throws, for the same reason as {@link guardLogger}: it ends a batch
 * whose records are settled already.
 *
 * @example
 * ```ts
 * const flush = guardFlush(sink.flush); // never throws
 * ```
 */
export function guardFlush(flush: () => void): () => void {
  return () => {
    try {
      flush();
    } catch (error) {
      reportSinkFailure('the metrics sink threw writing its metrics', error);
    }
  };
}

/** An async sink's promise, if it returned one, must not reject unhandled. */
function catchRejection(result: unknown, failed: (error: unknown) => void): void {
  if (typeof (result as Promise<unknown> | undefined)?.then === 'function') {
    (result as Promise<unknown>).then(undefined, failed);
  }
}

function reportSinkFailure(what: string, error: unknown): void {
  const name = error instanceof Error ? error.name : typeof error;
  try {
    process.stderr.write(
      `${JSON.stringify({ level: 'ERROR', message: `sqs-inbox: ${what} (${name})` })}\n`,
    );
  } catch {
    // Nowhere left to report to.
  }
}
