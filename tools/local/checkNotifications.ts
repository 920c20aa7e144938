import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { stepIdempotencyKey } from 'sqs-inbox/constants';
import {
  emailSubject,
  type PaymentNotification,
  receiptKey,
} from '../../functions/notifier/paymentNotification.js';
import type { InvariantResult } from './InvariantResult.js';
import type { SentEmail } from './readSentEmails.js';

/** What the notifier's invariants read besides the emails. */
export interface NotifierTargets {
  /** The notifier's name in the inbox (`INBOX_CONSUMER`), part of each email's reference. */
  readonly consumer: string;
  readonly receiptsBucket: string;
  /** The address every email comes from (`NOTIFIER_SENDER`). */
  readonly sender: string;
}

/** What the notifier left behind, read after a run. */
export interface NotifierState {
  /** The notifications the notifier committed (its inbox holds them with their payload). */
  readonly committed: readonly PaymentNotification[];
  /** The rows of its `notifications` table. */
  readonly rows: ReadonlyArray<Record<string, unknown>>;
  /** Every email SES accepted during the run, in order. */
  readonly emails: readonly SentEmail[];
  /** Why the run's emails cannot be read (AWS keeps no list): their checks are skipped. */
  readonly emailsUnreadable?: string;
}

/**
 * Per event id: the emails a run may have sent beyond the one each event gets, because an
 * attempt sent its email and never journaled it — killed or frozen between the two, or its
 * journal write refused or failed. `npm start` injects none of these: the map is empty.
 */
export type ExtraEmailAllowance = ReadonlyMap<string, number>;

/**
 * The notifier's promises after a run: one receipt per notified payment, with its content; one
 * notification row per committed event naming its email and receipt; and per committed event
 * one email, plus at most the extra ones `allowance` accounts for, each carrying the event's
 * stable reference (the email step's idempotency key).
 *
 * @example
 * ```ts
 * const results = await checkNotifications(state, targets, s3, new Map());
 * ```
 */
export async function checkNotifications(
  state: NotifierState,
  targets: NotifierTargets,
  s3: S3Client,
  allowance: ExtraEmailAllowance,
): Promise<InvariantResult[]> {
  const receipts = await oneReceiptPerPayment(state.committed, targets.receiptsBucket, s3);
  const rows = oneRowPerNotification(state);
  const emails = emailsMatchEvents(state, targets, allowance);
  const reason = state.emailsUnreadable;
  if (reason === undefined) return [receipts, rows, emails];
  return [receipts, skipped(rows, reason), skipped(emails, reason)];
}

function skipped(result: InvariantResult, reason: string): InvariantResult {
  return { name: result.name, holds: false, detail: `skipped: ${reason}`, skipped: reason };
}

async function oneReceiptPerPayment(
  committed: readonly PaymentNotification[],
  bucket: string,
  s3: S3Client,
): Promise<InvariantResult> {
  const keys = await listKeys(s3, bucket, 'receipts/');
  const expected = new Map(committed.map((n) => [receiptKey(n.paymentId), n]));
  const unexpected = keys.filter((key) => !expected.has(key));
  const wrong: string[] = [];
  for (const [key, notification] of expected) {
    if (!keys.includes(key)) {
      wrong.push(`${notification.eventId} has none`);
      continue;
    }
    const { email: _email, ...receipt } = notification;
    const body = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const stored = JSON.parse((await body.Body?.transformToString()) ?? '{}') as unknown;
    if (JSON.stringify(stored) !== JSON.stringify(receipt))
      wrong.push(`${notification.eventId}'s receipt holds another payment's content`);
  }
  return {
    name: 'notifier: one receipt per notified payment, with its content (S3, If-None-Match)',
    holds: wrong.length === 0 && unexpected.length === 0,
    detail:
      wrong.length + unexpected.length === 0
        ? `${keys.length} receipts for ${committed.length} notifications`
        : [...wrong, ...unexpected.map((key) => `unexpected ${key}`)].slice(0, 4).join('; '),
    figures: { receipts: keys.length },
  };
}

function oneRowPerNotification(state: NotifierState): InvariantResult {
  const emailIds = new Map(state.emails.map((email) => [email.messageId, email]));
  const rows = new Map(state.rows.map((row) => [String(row.eventId), row]));
  const wrong = state.committed.filter((notification) => {
    const row = rows.get(notification.eventId);
    const email = emailIds.get(String(row?.emailMessageId));
    return (
      row?.paymentId !== notification.paymentId ||
      row.receiptKey !== receiptKey(notification.paymentId) ||
      email?.subject !== emailSubject(notification)
    );
  });
  const extra = state.rows.length - state.committed.length;
  return {
    name: 'notifier: one notification row per committed event, naming an email of that event and its receipt',
    holds: wrong.length === 0 && extra === 0,
    detail:
      wrong.length === 0 && extra === 0
        ? `${state.rows.length} rows`
        : `${wrong.length} wrong or missing (${wrong
            .slice(0, 3)
            .map((n) => n.eventId)
            .join(', ')}), ${Math.max(0, extra)} extra`,
  };
}

/**
 * Emails per event: one each, plus the accounted extras; every copy carries the event's one
 * reference, and no email is for an event the notifier did not commit.
 */
function emailsMatchEvents(
  state: NotifierState,
  { consumer, sender }: NotifierTargets,
  allowance: ExtraEmailAllowance,
): InvariantResult {
  const byEvent = new Map<string, SentEmail[]>();
  const problems: string[] = [];
  for (const email of state.emails) {
    const eventId = /\(([^()]+)\)$/.exec(email.subject)?.[1];
    if (eventId === undefined) problems.push(`an email names no event: "${email.subject}"`);
    else byEvent.set(eventId, [...(byEvent.get(eventId) ?? []), email]);
    if (email.from !== sender) problems.push(`an email from ${email.from}, not ${sender}`);
  }
  const committed = new Set(state.committed.map((n) => n.eventId));
  let extras = 0;
  for (const notification of state.committed) {
    const emails = byEvent.get(notification.eventId) ?? [];
    const allowed = 1 + (allowance.get(notification.eventId) ?? 0);
    const reference = `Reference: ${stepIdempotencyKey(consumer, notification.eventId, 'email')}`;
    extras += Math.max(0, emails.length - 1);
    if (emails.length === 0) problems.push(`${notification.eventId}: no email`);
    else if (emails.length > allowed)
      problems.push(`${notification.eventId}: ${emails.length} emails, ${allowed} accounted for`);
    if (emails.some((email) => !email.bodyText.endsWith(reference)))
      problems.push(`${notification.eventId}: an email without the event's reference`);
    if (emails.some((email) => email.to.join() !== notification.email))
      problems.push(`${notification.eventId}: an email to someone else than ${notification.email}`);
  }
  const strays = [...byEvent.keys()].filter((eventId) => !committed.has(eventId));
  for (const eventId of strays) problems.push(`${eventId}: emailed, never committed`);
  const accounted = [...allowance.values()].reduce((sum, n) => sum + n, 0);
  return {
    name: "notifier: one email per event, extra ones only where an attempt sent it and never journaled it, each with the event's reference",
    holds: problems.length === 0,
    detail:
      problems.length === 0
        ? `${state.emails.length} emails for ${committed.size} events: ${extras} extra, ${accounted} accounted for by attempts stopped between email and journal`
        : problems.slice(0, 4).join('; '),
    figures: { emails: state.emails.length, extraEmails: extras, accountedExtraEmails: accounted },
  };
}

async function listKeys(s3: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken }),
    );
    keys.push(...(page.Contents ?? []).map((object) => object.Key ?? ''));
    ContinuationToken = page.NextContinuationToken;
  } while (ContinuationToken);
  return keys;
}
