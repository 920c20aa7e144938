import { NotModelledError } from '../NotModelledError.js';
import type { SqsRefusal } from './checkSendMessage.js';
import type { InFlightMessages } from './InFlightMessages.js';

/** The `ChangeMessageVisibility` parameters, as the wire carries them. */
export interface VisibilityInput {
  readonly QueueUrl?: string;
  readonly ReceiptHandle?: string;
  readonly VisibilityTimeout?: number;
}

/** One entry of a `ChangeMessageVisibilityBatch`, as the wire carries it. */
interface VisibilityEntry {
  readonly Id?: string;
  readonly ReceiptHandle?: string;
  readonly VisibilityTimeout?: number;
}

/** The `ChangeMessageVisibilityBatch` parameters, as the wire carries them. */
export interface VisibilityBatchInput {
  readonly QueueUrl?: string;
  readonly Entries?: readonly VisibilityEntry[];
}

/** What a batch answers: the entries applied, and those refused with SQS's code. */
export interface VisibilityBatchAnswer {
  readonly Successful: Array<{ readonly Id: string }>;
  readonly Failed: Array<{
    readonly Id: string;
    readonly Code: string;
    readonly SenderFault: true;
    readonly Message: string;
  }>;
}

/** SQS's limit on the entries of one batch request. */
const MAX_BATCH_ENTRIES = 10;
/** What SQS takes as a batch entry id. */
const BATCH_ENTRY_ID = /^[\w-]{1,80}$/;
const MODELLED_SINGLE = ['QueueUrl', 'ReceiptHandle', 'VisibilityTimeout'];
const MODELLED_BATCH = ['QueueUrl', 'Entries'];
const MODELLED_ENTRY = ['Id', 'ReceiptHandle', 'VisibilityTimeout'];

/**
 * One `ChangeMessageVisibility` as SQS applies it to a queue's messages in flight: SQS's refusal
 * (a missing parameter, or what {@link InFlightMessages.change} refuses), or `undefined` once
 * applied. A parameter it does not model throws `NotModelledError` naming it.
 *
 * @example
 * ```ts
 * const refusal = changeVisibility(inFlight, input, now);
 * ```
 */
export function changeVisibility(
  inFlight: InFlightMessages,
  input: VisibilityInput,
  nowMillis: number,
): SqsRefusal | undefined {
  checkModelled('ChangeMessageVisibility', input, MODELLED_SINGLE);
  return changeOne(inFlight, input.QueueUrl ?? '', input, nowMillis);
}

/**
 * `ChangeMessageVisibilityBatch` as SQS applies it: each entry on its own, a refused one listed
 * in `Failed` with its code while the others apply; the whole request refused when it has no
 * entry, more than ten, two with one `Id`, or an `Id` SQS does not take.
 *
 * @example
 * ```ts
 * const answer = changeVisibilityBatch(inFlight, input, now); // SqsRefusal or { Successful, Failed }
 * ```
 */
export function changeVisibilityBatch(
  inFlight: InFlightMessages,
  input: VisibilityBatchInput,
  nowMillis: number,
): SqsRefusal | VisibilityBatchAnswer {
  checkModelled('ChangeMessageVisibilityBatch', input, MODELLED_BATCH);
  const entries = input.Entries ?? [];
  for (const entry of entries) {
    checkModelled('ChangeMessageVisibilityBatch', entry, MODELLED_ENTRY, 'Entries.');
  }
  const refusal = visibilityBatchRefusal(entries);
  if (refusal !== undefined) return refusal;
  const answer: VisibilityBatchAnswer = { Successful: [], Failed: [] };
  for (const entry of entries) {
    const Id = entry.Id ?? '';
    const failed = changeOne(inFlight, input.QueueUrl ?? '', entry, nowMillis);
    if (failed === undefined) answer.Successful.push({ Id });
    else answer.Failed.push({ Id, Code: failed.shape, SenderFault: true, Message: failed.message });
  }
  return answer;
}

function changeOne(
  inFlight: InFlightMessages,
  queueUrl: string,
  entry: VisibilityInput,
  nowMillis: number,
): SqsRefusal | undefined {
  if (entry.ReceiptHandle === undefined) return missing('ReceiptHandle');
  if (entry.VisibilityTimeout === undefined) return missing('VisibilityTimeout');
  return inFlight.change(queueUrl, entry.ReceiptHandle, entry.VisibilityTimeout, nowMillis);
}

/**
 * Why SQS refuses a whole `ChangeMessageVisibilityBatch` request (no entry, more than 10, a
 * repeated `Id`, an `Id` it does not take), or undefined. The simulation's SQS refuses by it too.
 *
 * @example
 * ```ts
 * visibilityBatchRefusal([])?.shape; // => 'EmptyBatchRequest'
 * ```
 */
export function visibilityBatchRefusal(
  entries: readonly VisibilityEntry[],
): SqsRefusal | undefined {
  if (entries.length === 0) {
    return batchRefusal(
      'EmptyBatchRequest',
      'There should be at least one ChangeMessageVisibilityBatchRequestEntry in the request.',
    );
  }
  if (entries.length > MAX_BATCH_ENTRIES) {
    return batchRefusal(
      'TooManyEntriesInBatchRequest',
      `Maximum number of entries per request are ${MAX_BATCH_ENTRIES}. You have sent ${entries.length}.`,
    );
  }
  const ids = entries.map((entry) => entry.Id);
  const repeated = ids.find((id, index) => ids.indexOf(id) !== index);
  if (repeated !== undefined) {
    return batchRefusal('BatchEntryIdsNotDistinct', `Id ${repeated} repeated.`);
  }
  if (ids.some((id) => id === undefined || !BATCH_ENTRY_ID.test(id))) {
    return batchRefusal(
      'InvalidBatchEntryId',
      'A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.',
    );
  }
  return undefined;
}

function checkModelled(operation: string, input: object, modelled: string[], path = ''): void {
  const unmodelled = Object.keys(input).filter((name) => !modelled.includes(name));
  if (unmodelled.length > 0) {
    const feature = unmodelled.map((name) => `${path}${name}`).join(', ');
    throw new NotModelledError(operation, feature, modelled, 'SQS');
  }
}

function missing(parameter: string): SqsRefusal {
  return {
    shape: 'MissingParameter',
    code: 'MissingParameter',
    message: `The request must contain the parameter ${parameter}.`,
  };
}

/** A batch refusal: its query-compatible code carries SQS's prefix. */
function batchRefusal(shape: string, message: string): SqsRefusal {
  return { shape, code: `AWS.SimpleQueueService.${shape}`, message };
}
