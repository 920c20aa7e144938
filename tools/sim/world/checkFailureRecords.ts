import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { ChangeRecord } from '../../../src/testing/dynamo/SimDynamoDB.js';
import { WorldTables } from './consumerFunction.js';
import type { WorldObservation } from './WorldObservation.js';

type Image = Record<string, AttributeValue>;

const attemptsOf = (image: Image | undefined) => Number(image?.attempts?.N ?? 0);
const epochOf = (image: Image | undefined) => Number(image?.leaseEpoch?.N ?? 0);

/**
 * Whether a change is a step-less attempt's failure record: a `FAILED` image whose attempts
 * changed without a claim (a claim raises the fencing counter; a release leaves attempts be).
 *
 * @example
 * ```ts
 * if (isFailureRecord(change)) continue; // not a write under a lease
 * ```
 */
export function isFailureRecord(change: ChangeRecord): boolean {
  const { oldImage: old, newImage: next } = change;
  return (
    next?.status?.S === 'FAILED' &&
    attemptsOf(next) !== attemptsOf(old) &&
    epochOf(next) === epochOf(old)
  );
}

/**
 * The invariants of failure records (a failed attempt of a record that ran no step, written on
 * its entry):
 * - it only creates an entry or updates a released (`FAILED`, no lease) one of the same payload:
 *   never a committed entry, never one an attempt's lease holds, lapsed or not;
 * - it counts exactly one attempt and carries the error's name;
 * - it is written by an invocation that had the record, and never after that invocation's
 *   batch answered at its deadline (the batch does not wait for it then). That it is never
 *   written on a success path follows from the first: a record's success is its commit, which
 *   no failure record may change.
 *
 * @example
 * ```ts
 * checkFailureRecords(world, changes, failures);
 * ```
 */
export function checkFailureRecords(
  world: WorldObservation,
  changes: readonly ChangeRecord[],
  failures: string[],
): void {
  for (const change of changes) {
    if (change.tableName !== WorldTables.Inbox || !isFailureRecord(change)) continue;
    const { oldImage: old, newImage: next } = change;
    const what = `the failure record of ${next?.key?.S} (change ${change.sequence})`;
    if (old !== undefined && (old.status?.S !== 'FAILED' || old.leaseOwner !== undefined)) {
      failures.push(
        `failure records: ${what} changed a ${old.status?.S} entry${old.leaseOwner === undefined ? '' : ' under a lease'}, not an absent or released one`,
      );
    }
    if (old !== undefined && old.payloadHash?.S !== next?.payloadHash?.S) {
      failures.push(`failure records: ${what} changed an entry of another payload`);
    }
    if (attemptsOf(next) !== attemptsOf(old) + 1 || next?.lastError?.M?.name?.S === undefined) {
      failures.push(
        `failure records: ${what} counts ${attemptsOf(next)} attempts after ${attemptsOf(old)}, not one more with its error's name`,
      );
    }
    checkWriter(world, change, what, failures);
  }
}

/** The invocation that wrote it had the record, and had not answered at its deadline. */
function checkWriter(
  world: WorldObservation,
  change: ChangeRecord,
  what: string,
  failures: string[],
): void {
  const invocationId = world.changeInvocations[change.sequence - 1];
  const writer = world.invocations.find(({ id }) => id === invocationId);
  const messageId = change.newImage?.messageId?.S ?? '';
  if (writer === undefined || !writer.messageIds.includes(messageId)) {
    failures.push(`failure records: ${what} names ${messageId}, not a record of its writer`);
    return;
  }
  const sentMillis = world.changeSentMillis[change.sequence - 1];
  if (
    writer.deadlineMillis !== undefined &&
    sentMillis !== undefined &&
    sentMillis > writer.deadlineMillis
  ) {
    failures.push(
      `failure records: ${what} was sent by invocation ${writer.id} after its batch answered at the deadline`,
    );
  }
}
