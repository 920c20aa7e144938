import { createHash } from 'node:crypto';

/**
 * How a dedup key appears in log lines and dead-letter attributes: the key itself with
 * `observability.logKeys: true`, otherwise its {@link keyHash}, since a key can be personal data (an email).
 *
 * @example
 * ```ts
 * const logged: LoggedKey = { keyHash: keyHash('evt-42') };
 * ```
 */
export type LoggedKey = { readonly key: string } | { readonly keyHash: string };

/**
 * The hash that stands for a dedup key in logs and DLQ attributes (`keyHash`,
 * `inbox.keyHash`): the first 16 hex digits of its SHA-256. Compute it for a key you know to
 * find its lines.
 *
 * @example
 * ```ts
 * keyHash('evt-42'); // search the logs for this value
 * ```
 * @public
 */
export function keyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

/**
 * The form of `key` that may be logged.
 *
 * @example
 * ```ts
 * logger.info('committed', { ...loggedKey('evt-42', false) }); // { keyHash: '…' }
 * ```
 */
export function loggedKey(key: string | undefined, logKeys: boolean): LoggedKey | undefined {
  if (key === undefined) return undefined;
  return logKeys ? { key } : { keyHash: keyHash(key) };
}
