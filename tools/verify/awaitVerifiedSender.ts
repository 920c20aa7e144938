import { setTimeout as sleep } from 'node:timers/promises';
import type { SESv2Client } from '@aws-sdk/client-sesv2';
import { verifiedForSending } from '../local/enforceSenderIdentity.js';
import type { InvariantResult } from '../local/InvariantResult.js';

const POLL_MILLIS = 10_000;

/**
 * Waits until the SES identity may send, up to `waitMillis`: on AWS a new email identity may
 * not send until the link SES mailed to it is followed. Returns undefined once it may send, or
 * why it may not (the reason the notifier's checks are skipped).
 *
 * @example
 * ```ts
 * const unverified = await awaitVerifiedSender(ses, 'me@example.org', 10 * 60_000, console.log);
 * ```
 */
export async function awaitVerifiedSender(
  ses: SESv2Client,
  sender: string,
  waitMillis: number,
  log: (line: string) => void,
): Promise<string | undefined> {
  const deadline = Date.now() + waitMillis;
  if (await verifiedForSending(ses, sender)) return undefined;
  log(
    `[verify] the SES sender ${sender} is not verified: follow the link SES mailed to it (waiting up to ${Math.round(waitMillis / 60_000)} min)`,
  );
  while (Date.now() < deadline) {
    await sleep(POLL_MILLIS);
    if (await verifiedForSending(ses, sender)) return undefined;
  }
  return `the SES sender ${sender} is not verified, so SES refuses the notifier's emails (pass --sender <an address you can open> and follow SES's link)`;
}

/**
 * The checks an unverified sender makes fail by SES's refusal, not by the library: the
 * notifier's (receipt, row, email), the relay's second hop (the notifier commits nothing) and
 * the DLQ check (the notifier's refused notifications end in its DLQ).
 */
const NEEDS_SENDING = [
  'notifier:',
  'nothing lost between the hops',
  'no valid event dead-lettered',
];

/**
 * `results` with the checks that need a verified sender skipped, saying why.
 *
 * @example
 * ```ts
 * const reported = unverified ? skipSendingChecks(results, unverified) : results;
 * ```
 */
export function skipSendingChecks(
  results: readonly InvariantResult[],
  reason: string,
): InvariantResult[] {
  return results.map((result) =>
    NEEDS_SENDING.some((prefix) => result.name.startsWith(prefix))
      ? { name: result.name, holds: false, detail: `skipped: ${reason}`, skipped: reason }
      : result,
  );
}
