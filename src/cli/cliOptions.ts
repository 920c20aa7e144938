import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './CliError.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Where to connect, how to find the consumer, and how to print: every command takes these. */
export const COMMON_OPTIONS = {
  profile: { type: 'string' },
  region: { type: 'string' },
  'endpoint-url': { type: 'string' },
  function: { type: 'string' },
  local: { type: 'boolean' },
  table: { type: 'string' },
  consumer: { type: 'string' },
  dlq: { type: 'string' },
  queue: { type: 'string' },
  'outbox-table': { type: 'string' },
  'ttl-seconds': { type: 'string' },
  sources: { type: 'string' },
  'key-from': { type: 'string' },
  'key-is-message-id': { type: 'boolean' },
  json: { type: 'boolean' },
  jsonl: { type: 'boolean' },
  'show-key': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

/** The values of the common options, as `parseArgs` gives them. */
export type CommonValues = {
  readonly [K in keyof typeof COMMON_OPTIONS]?: (typeof COMMON_OPTIONS)[K]['type'] extends 'string'
    ? string
    : boolean;
};

/** The values of a command's own options. */
export type OwnValues<T extends Options> = {
  readonly [K in keyof T]?: T[K] extends { type: 'string'; multiple: true }
    ? string[]
    : T[K] extends { type: 'string' }
      ? string
      : boolean;
};

/**
 * Parses a command's arguments strictly: an unknown option or a missing value is a
 * `UsageError` that names it and the command's help.
 *
 * @example
 * ```ts
 * const { values, positionals } = parseCommand('dlq report', argv, { apply: { type: 'boolean' } });
 * ```
 */
export function parseCommand<T extends Options>(
  command: string,
  argv: readonly string[],
  own: T,
): { readonly values: CommonValues & OwnValues<T>; readonly positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options: { ...COMMON_OPTIONS, ...own },
      allowPositionals: true,
      strict: true,
    });
    return { values: values as CommonValues & OwnValues<T>, positionals };
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (see: sqs-inbox ${command} --help)`, {
      cause: error,
    });
  }
}

/**
 * A whole number option, checked: a `UsageError` names the option and its range otherwise.
 *
 * @example
 * ```ts
 * const limit = wholeNumber('--limit', values.limit, 1);
 * ```
 */
export function wholeNumber(
  name: string,
  text: string | undefined,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`${name} takes a whole number from ${min} to ${max}`);
  }
  return value;
}

/**
 * A time option: an ISO-8601 time, or a duration before now (`30m`, `6h`, `2d`).
 *
 * @example
 * ```ts
 * const sinceMillis = timeOption('--since', '6h', Date.now());
 * ```
 */
export function timeOption(name: string, text: string | undefined, nowMillis: number) {
  if (text === undefined) return undefined;
  const ago = /^(\d+)([smhd])$/.exec(text);
  if (ago) {
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[
      ago[2] as 's' | 'm' | 'h' | 'd'
    ];
    return nowMillis - Number(ago[1]) * unit;
  }
  const millis = Date.parse(text);
  if (Number.isNaN(millis)) {
    throw new UsageError(`${name} takes an ISO-8601 time or a duration before now (30m, 6h, 2d)`);
  }
  return millis;
}
