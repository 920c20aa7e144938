import { deadLetterReason } from '../../../src/operations/deadLetterFacts.js';
import type { RedriveSelection } from '../../../src/operations/RedriveSelection.js';
import type { Prng } from '../kernel/Prng.js';
import type { SimQueue } from '../sqs/SimQueue.js';
import type { OperatorRedriveSettings } from './drawRedriveKind.js';

/**
 * The part of the DLQ an operator's run handles, chosen from what the DLQ holds when the run
 * starts, as an operator chooses after reading its report (`sqs-inbox dlq report`): some of the
 * reasons it holds (`--reason`), or what was sent since one of its messages (`--since`). A part,
 * not the whole, whenever the DLQ holds more than one reason or send time. Nothing to choose from
 * (an empty DLQ), or no selection drawn: the whole DLQ.
 *
 * @example
 * ```ts
 * const selection = operatorSelection(config.redriveSelection, deadLetterQueue, epochMillis, random);
 * ```
 */
export function operatorSelection(
  kind: OperatorRedriveSettings['redriveSelection'],
  deadLetterQueue: SimQueue,
  epochMillis: number,
  random: Prng,
): RedriveSelection | undefined {
  const messages = deadLetterQueue.messages;
  if (kind === undefined || messages.length === 0) return undefined;
  if (kind === 'since') {
    const sentMillis = distinct(messages.map((message) => message.sentAtMillis + epochMillis));
    return { sinceMillis: random.pick(sentMillis.length > 1 ? sentMillis.slice(1) : sentMillis) };
  }
  const reasons = distinct(
    messages.map((message) => deadLetterReason(deadLetterQueue.toRecord(message))),
  );
  const some = reasons.filter(() => random.chance(0.5));
  const part = some.length > 0 && some.length < reasons.length;
  return { reasons: part ? some : [random.pick(reasons)] };
}

/** The distinct values, in ascending order. */
function distinct<T extends string | number>(values: readonly T[]): T[] {
  return [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
