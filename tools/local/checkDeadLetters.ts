import type { Message } from '@aws-sdk/client-sqs';
import { DeadLetterAttribute } from 'sqs-inbox/constants';
import type { ConsumerName, DemoPlan } from './demoTraffic.js';
import type { InvariantResult } from './InvariantResult.js';
import { eventIdOf, type Item, isCommitted } from './readRunState.js';

/**
 * Every malformed message of the plan in a DLQ, carrying the error it must name.
 *
 * @example
 * ```ts
 * malformedInDeadLetters(plan, deadMessages).holds
 * ```
 */
export function malformedInDeadLetters(plan: DemoPlan, dead: Message[]): InvariantResult {
  const missing = plan.malformed.filter(
    (m) =>
      !dead.some(
        (d) =>
          d.Body === m.body &&
          d.MessageAttributes?.[DeadLetterAttribute.Error]?.StringValue === m.expectedError,
      ),
  );
  return {
    name: 'every malformed message in a DLQ with its reason',
    holds: missing.length === 0,
    detail: missing.length
      ? `${missing.length} of ${plan.malformed.length} missing`
      : `${plan.malformed.length} messages`,
  };
}

/**
 * Every conflicting payment dead-lettered by the function on its last receive, with the
 * condition's failure as its reason, and without effect (its ledger entry is the original's).
 *
 * @example
 * ```ts
 * conflictingRedriven(plan, deadMessages, ledgerEntries).holds
 * ```
 */
export function conflictingRedriven(
  plan: DemoPlan,
  dead: Message[],
  entries: Item[],
): InvariantResult {
  const entryEvent = new Map(entries.map((e) => [e.paymentId, e.eventId]));
  const wrong = plan.conflicting.filter((payment) => {
    // The function knows maxReceiveCount: on the last receive it dead-letters the message
    // itself, with the condition's failure as the reason.
    const deadLettered = dead.some(
      (d) =>
        d.Body === JSON.stringify(payment) &&
        d.MessageAttributes?.[DeadLetterAttribute.Error]?.StringValue ===
          'BusinessConditionFailedError',
    );
    return !deadLettered || entryEvent.get(payment.paymentId) === payment.eventId;
  });
  return {
    name: 'every conflicting payment retried, then dead-lettered on its last receive with its reason, without effect',
    holds: wrong.length === 0,
    detail: wrong.length
      ? `${wrong.length} of ${plan.conflicting.length} not`
      : `${plan.conflicting.length} messages`,
  };
}

/** The reason a dead-lettered message carries; none means the queue's redrive moved it. */
const REDRIVEN = 'redriven after maxReceiveCount receives';

/**
 * Every distinct event of the plan committed or in a DLQ (with its reason, or moved there by
 * the redrive policy); its figures count both.
 *
 * @example
 * ```ts
 * nothingLost(plan, inbox, dead, consumers).figures // { events, committed, inDeadLetterQueues }
 * ```
 */
export function nothingLost(
  plan: DemoPlan,
  inbox: Item[],
  dead: Array<{ consumer: ConsumerName; message: Message }>,
  consumers: Record<ConsumerName, string>,
): InvariantResult {
  const entries = new Map(inbox.map((entry) => [String(entry.pk), entry]));
  const reasons = new Map(
    dead.map(({ consumer, message }) => [
      `${consumer}\n${message.Body}`,
      message.MessageAttributes?.[DeadLetterAttribute.Error]?.StringValue ?? REDRIVEN,
    ]),
  );
  const distinct = new Map(plan.messages.map((m) => [`${m.consumer}\n${m.body}`, m]));
  const dlqReasons = new Map<string, number>();
  const lost: string[] = [];
  let committed = 0;
  for (const [id, message] of distinct) {
    if (isCommitted(message, entries, consumers)) committed++;
    else if (reasons.has(id)) {
      const reason = reasons.get(id) ?? REDRIVEN;
      dlqReasons.set(reason, (dlqReasons.get(reason) ?? 0) + 1);
    } else lost.push(eventIdOf(message.body) ?? message.body.slice(0, 40));
  }
  const inDlq = [...dlqReasons].map(([reason, n]) => `${n} ${reason}`).join(', ');
  return {
    name: 'nothing lost: every event sent is committed (inbox entry) or in a DLQ with its reason',
    holds: lost.length === 0,
    detail: lost.length
      ? `${lost.length} of ${distinct.size} lost: ${lost.slice(0, 5).join(', ')}`
      : `${committed} committed, ${distinct.size - committed} in a DLQ${inDlq ? ` (${inDlq})` : ''}`,
    figures: {
      events: distinct.size,
      committed,
      inDeadLetterQueues: distinct.size - committed - lost.length,
    },
  };
}

/** A valid event in a DLQ is a failure even when its other copy committed. */
/**
 * The DLQs hold only the malformed and conflicting messages: a valid event there is a failure,
 * even when another copy of it committed.
 *
 * @example
 * ```ts
 * onlyExpectedDeadLetters(plan, dead).holds
 * ```
 */
export function onlyExpectedDeadLetters(
  plan: DemoPlan,
  dead: Array<{ consumer: ConsumerName; message: Message }>,
): InvariantResult {
  const expected = new Set([
    ...plan.malformed.map((m) => `${m.consumer}\n${m.body}`),
    ...plan.conflicting.map((payment) => `ledger\n${JSON.stringify(payment)}`),
  ]);
  const unexpected = dead.filter(
    ({ consumer, message }) => !expected.has(`${consumer}\n${message.Body}`),
  );
  const named = unexpected
    .slice(0, 3)
    .map(
      ({ message }) =>
        `${eventIdOf(message.Body ?? '') ?? '?'} (${message.MessageAttributes?.[DeadLetterAttribute.Error]?.StringValue ?? REDRIVEN})`,
    );
  return {
    name: 'no valid event dead-lettered: the DLQs hold only malformed and conflicting messages',
    holds: unexpected.length === 0,
    detail: unexpected.length
      ? `${unexpected.length} unexpected: ${named.join(', ')}`
      : `${dead.length} messages for ${expected.size} expected`,
  };
}
