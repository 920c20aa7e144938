import type { InboxLogger } from './types.js';

const LEVELS = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40 } as const;
type Level = keyof typeof LEVELS;

/**
 * The default logger: one JSON object per line on the console, which Lambda ships to
 * CloudWatch Logs. The level comes from `level`, else `AWS_LAMBDA_LOG_LEVEL` or `LOG_LEVEL`
 * (read when the logger is created), else INFO.
 *
 * @example
 * ```ts
 * const logger = createConsoleLogger('WARN');
 * logger.warn('stock is low', { sku: 'A-1' });
 * ```
 */
export function createConsoleLogger(level?: Level): InboxLogger {
  const configured = level ?? parseLevel(process.env.AWS_LAMBDA_LOG_LEVEL ?? process.env.LOG_LEVEL);
  const threshold = LEVELS[configured];
  const write = (at: Level, message: string, extras: Array<Record<string, unknown>>) => {
    if (LEVELS[at] < threshold) return;
    const entry = Object.assign(
      { level: at, message, timestamp: new Date().toISOString() },
      ...extras,
    );
    const line = JSON.stringify(entry, replaceErrors);
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

function parseLevel(value: string | undefined): Level {
  const upper = value?.toUpperCase();
  return upper !== undefined && upper in LEVELS ? (upper as Level) : 'INFO';
}

function replaceErrors(_key: string, value: unknown): unknown {
  if (!(value instanceof Error)) return value;
  return {
    name: value.name,
    message: value.message,
    ...(value.cause ? { cause: String(value.cause) } : {}),
  };
}
