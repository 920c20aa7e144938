import { InboxStatus } from 'sqs-inbox/constants';
import type { InboxEntry } from 'sqs-inbox/types';

/**
 * An inbox entry as an operator reads it: where the message stands (status, attempts, last
 * error, finished steps, the lease of one in progress), from the entry's own fields. Step
 * results are not shown, nor anything of the payload but its hash.
 *
 * @example
 * ```ts
 * console.log(describeEntry(await store.find(inboxPk('notifier', 'evt-1')), Date.now()));
 * ```
 */
export function describeEntry(entry: InboxEntry, nowMillis: number): string {
  const lines: Array<[string, string]> = [
    ['message', entry.messageId],
    ['payload', `sha256 ${entry.payloadHash}`],
  ];
  if (entry.processedAt !== undefined) lines.push(['committed', entry.processedAt]);
  if (entry.attempts !== undefined) lines.push(['attempts', String(entry.attempts)]);
  if (entry.lastError !== undefined) {
    lines.push(['last error', `${entry.lastError.name} at ${entry.lastError.at}`]);
  }
  const steps = Object.entries(entry.steps ?? {});
  if (entry.steps !== undefined) {
    const finished = steps.map(([name, step]) => `${name} (${step.at})`).join(', ');
    lines.push(['steps', steps.length === 0 ? 'none finished' : finished]);
  }
  if (entry.status === InboxStatus.InProgress && entry.leaseUntilMillis !== undefined) {
    const until = new Date(entry.leaseUntilMillis).toISOString();
    const state = entry.leaseUntilMillis >= nowMillis ? 'held until' : 'lapsed at';
    lines.push(['lease', `${state} ${until}`]);
  }
  const expires = new Date(entry.expiresAt * 1000).toISOString();
  lines.push(['expires', `${expires}${entry.expiresAt * 1000 < nowMillis ? ' (expired)' : ''}`]);
  const width = Math.max(...lines.map(([label]) => label.length));
  return [
    `${entry.consumer} / ${entry.key}: ${entry.status}`,
    ...lines.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`),
  ].join('\n');
}
