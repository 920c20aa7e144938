import { InboxStatus } from '../constants/values.js';
import type { InboxEntry } from '../core/inboxEntry.js';
import { keyHash } from '../core/loggedKey.js';

/**
 * An inbox entry as `sqs-inbox message` prints it: where the message stands, from the entry's
 * own fields — never a step's result, nothing of the payload but its hash, the key only when
 * asked.
 *
 * @example
 * ```ts
 * const view = entryView('ledger', key, await store.find(pk), Date.now(), false);
 * ```
 */
export function entryView(
  consumer: string,
  key: string,
  entry: InboxEntry | undefined,
  nowMillis: number,
  showKey: boolean,
) {
  const who = { consumer, keyHash: keyHash(key), ...(showKey ? { key } : {}) };
  if (entry === undefined) return { ...who, status: 'absent' as const };
  const expired = entry.expiresAt * 1000 < nowMillis;
  return {
    ...who,
    status: expired ? ('expired' as const) : entry.status,
    ...(expired ? { storedStatus: entry.status } : {}),
    messageId: entry.messageId,
    ...(entry.processedAt ? { processedAt: entry.processedAt } : {}),
    payloadHash: entry.payloadHash,
    ...(entry.attempts === undefined ? {} : { attempts: entry.attempts }),
    ...(entry.lastError ? { lastError: entry.lastError } : {}),
    ...(entry.steps
      ? { steps: Object.entries(entry.steps).map(([name, step]) => ({ name, at: step.at })) }
      : {}),
    ...(entry.status === InboxStatus.InProgress && entry.leaseUntilMillis !== undefined
      ? {
          lease: {
            until: new Date(entry.leaseUntilMillis).toISOString(),
            ...(entry.leaseEpoch === undefined ? {} : { epoch: entry.leaseEpoch }),
            state: entry.leaseUntilMillis >= nowMillis ? 'held' : 'lapsed',
          },
        }
      : {}),
    expiresAt: new Date(entry.expiresAt * 1000).toISOString(),
    formatVersion: entry.formatVersion,
  };
}

/** What {@link entryView} returns. */
export type EntryView = ReturnType<typeof entryView>;

/**
 * The text form of an {@link EntryView}.
 *
 * @example
 * ```ts
 * io.stdout(`${entryText(view)}\n`);
 * ```
 */
export function entryText(view: EntryView & { dlqCopies?: readonly unknown[] }): string {
  const head = `${view.consumer} / ${'key' in view ? view.key : `keyHash ${view.keyHash}`}: ${view.status}`;
  if (!('messageId' in view))
    return `${head}\n  no inbox entry: never attempted, or expired and deleted`;
  const lines: Array<[string, string | undefined]> = [
    ['message', view.messageId],
    ['payload', `sha256 ${view.payloadHash}`],
    ['committed', view.processedAt],
    ['attempts', view.attempts === undefined ? undefined : String(view.attempts)],
    ['last error', view.lastError ? `${view.lastError.name} at ${view.lastError.at}` : undefined],
    [
      'steps',
      view.steps?.map((step) => `${step.name} (${step.at})`).join(', ') ||
        (view.steps ? 'none finished' : undefined),
    ],
    [
      'lease',
      view.lease
        ? `${view.lease.state} until ${view.lease.until}${'epoch' in view.lease ? `, epoch ${view.lease.epoch}` : ''}`
        : undefined,
    ],
    ['expires', view.expiresAt],
  ];
  const shown = lines.filter((line): line is [string, string] => line[1] !== undefined);
  const width = Math.max(...shown.map(([label]) => label.length));
  return [head, ...shown.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`)].join('\n');
}
