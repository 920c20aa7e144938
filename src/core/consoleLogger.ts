import type { InboxLogger } from './types.js';

const LEVELS: Readonly<Record<ConsoleLogLevel, number>> = {
  DEBUG: 10,
  INFO: 20,
  WARN: 30,
  ERROR: 40,
};
/**
 * A level of `createConsoleLogger`: what it writes and above.
 *
 * @example
 * ```ts
 * const level: ConsoleLogLevel = 'WARN';
 * ```
 * @public
 */
export type ConsoleLogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

/**
 * The default logger: one JSON object per line on the console, which Lambda ships to
 * CloudWatch Logs. The level comes from `level`, else `AWS_LAMBDA_LOG_LEVEL` or `LOG_LEVEL`
 * (read when the logger is created), else INFO. Any value can be logged: errors become
 * `{ name, message }`, BigInts strings, repeated or circular objects `"[Circular]"`.
 *
 * @example
 * ```ts
 * const logger = createConsoleLogger('WARN');
 * logger.warn('stock is low', { sku: 'A-1' });
 * ```
 * @public
 */
export function createConsoleLogger(level?: ConsoleLogLevel): InboxLogger {
  const configured = level ?? parseLevel(process.env.AWS_LAMBDA_LOG_LEVEL ?? process.env.LOG_LEVEL);
  const threshold = LEVELS[configured];
  const write = (at: ConsoleLogLevel, message: string, extras: Array<Record<string, unknown>>) => {
    if (LEVELS[at] < threshold) return;
    const entry = Object.assign(
      { level: at, message, timestamp: new Date().toISOString() },
      ...extras,
    );
    const line = serialize(entry);
    if (LEVELS[at] >= LEVELS.WARN) console.error(line);
    else console.log(line);
  };
  return {
    debug: (message, ...extras) => write('DEBUG', message, extras),
    info: (message, ...extras) => write('INFO', message, extras),
    warn: (message, ...extras) => write('WARN', message, extras),
    error: (message, ...extras) => write('ERROR', message, extras),
  };
}

function parseLevel(value: string | undefined): ConsoleLogLevel {
  const upper = value?.toUpperCase();
  return upper !== undefined && upper in LEVELS ? (upper as ConsoleLogLevel) : 'INFO';
}

function serialize(entry: Record<string, unknown>): string {
  const seen = new WeakSet<object>();
  try {
    return JSON.stringify(entry, (_key, value: unknown) => safeValue(value, seen));
  } catch {
    // A getter or toJSON that throws: keep the line, without its extras.
    const { level, message, timestamp } = entry;
    return JSON.stringify({ level, message, timestamp, extras: '[unserializable]' });
  }
}

function safeValue(value: unknown, seen: WeakSet<object>): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  if (!(value instanceof Error)) return value;
  // A cause by its name only: its message can quote what the error was about.
  const cause = value.cause instanceof Error ? value.cause.name : undefined;
  return { name: value.name, message: value.message, ...(cause ? { cause } : {}) };
}
