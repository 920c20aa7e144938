import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type NativeAttributeValue, unmarshall } from '@aws-sdk/util-dynamodb';
import { InboxStatus, TransientReason } from '../constants/values.js';
import type { ClaimRequest, ClaimResult, JournaledStep, LeaseToken } from '../core/InboxStore.js';
import { toEpochSeconds } from '../core/inboxEntry.js';
import { LeaseLostError, LeaseOperation, TransientStoreError } from '../errors.js';
import { DynamoDBException, isException, translate } from './dynamoDBErrors.js';
import {
  ENTRY_CONDITION,
  ENTRY_UPDATE,
  entryUpdate,
  entryValues,
  releaseUpdate,
} from './entryWrites.js';
import { claimedFrom, leaseOf, toEntry } from './inboxItem.js';

/**
 * The lease writes of {@link DynamoDBInboxStore}, for handlers with steps: the claim, and the
 * journal, heartbeat and release, each fenced by the attempt's owner token and counter. Part
 * of the store (it uses the store's client and reads): nothing outside the store builds them.
 *
 * @example
 * ```ts
 * const leases = new InboxLeases('inbox', () => client, (pk) => readItem(pk));
 * const claim = await leases.claim(request);
 * ```
 */
export class InboxLeases {
  readonly tableName: string;
  readonly #client: () => DynamoDBDocumentClient;
  readonly #readItem: (pk: string) => Promise<Record<string, unknown> | undefined>;

  constructor(
    tableName: string,
    client: () => DynamoDBDocumentClient,
    readItem: (pk: string) => Promise<Record<string, unknown> | undefined>,
  ) {
    this.tableName = tableName;
    this.#client = client;
    this.#readItem = readItem;
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    const { absent, resumable, expired } = ENTRY_CONDITION;
    const first = await this.#claimWith(ENTRY_UPDATE.claim, `${absent} OR ${resumable}`, request);
    if (first.claimed || first.existing.expiresAt >= toEpochSeconds(request.nowMillis)) {
      return first;
    }
    // Past its TTL, not yet swept: the key is free again, and its journal belongs to the past.
    return this.#claimWith(ENTRY_UPDATE.claimAfresh, expired, request);
  }

  async journal(request: {
    pk: string;
    lease: LeaseToken;
    stepName: string;
    step: JournaledStep;
  }): Promise<void> {
    await this.#fenced(LeaseOperation.Journal, request, ENTRY_UPDATE.journal, {
      ':step': request.step,
    });
  }

  async heartbeat(request: {
    pk: string;
    lease: LeaseToken;
    leaseUntilMillis: number;
    expiresAt: number;
  }): Promise<void> {
    await this.#fenced(LeaseOperation.Heartbeat, request, ENTRY_UPDATE.heartbeat, {
      ':leaseUntil': request.leaseUntilMillis,
      ':expiresAt': request.expiresAt,
    });
  }

  async release(request: {
    pk: string;
    lease: LeaseToken;
    lastError: { name: string; at: string };
    journal?: Readonly<Record<string, JournaledStep>>;
  }): Promise<void> {
    const unjournaled = Object.entries(request.journal ?? {});
    const names: Record<string, string> = {};
    const values: Record<string, NativeAttributeValue> = {
      ':failed': InboxStatus.Failed,
      ':lastError': request.lastError,
    };
    unjournaled.forEach(([stepName, step], n) => {
      names[`#j${n}`] = stepName;
      values[`:j${n}`] = step;
    });
    await this.#fenced(
      LeaseOperation.Release,
      request,
      releaseUpdate(unjournaled.length),
      values,
      names,
    );
  }

  /** One claim: the update under its condition; refused, the entry that refused it. */
  async #claimWith(update: string, condition: string, request: ClaimRequest): Promise<ClaimResult> {
    const { entry } = request;
    const input = entryUpdate(this.tableName, entry.pk, update, condition, {
      ...entryValues(entry, request.payloadHashes, request.nowMillis),
      ':inProgress': InboxStatus.InProgress,
      ':completed': InboxStatus.Completed,
      ':owner': request.owner,
      ':leaseUntil': request.leaseUntilMillis,
      ':noSteps': {},
      ':nowMillis': request.nowMillis,
    });
    try {
      const { Attributes = {} } = await this.#client().send(
        new UpdateCommand({ ...input, ReturnValues: 'ALL_NEW' }),
      );
      return claimedFrom(Attributes);
    } catch (error) {
      const item = await this.#refusedItem(error, entry.pk);
      // A claim applied whose answer was lost, retried: the lease found is this attempt's own.
      if (leaseOf(item)?.owner === request.owner) return claimedFrom(item);
      return { claimed: false, existing: toEntry(item, this.tableName) };
    }
  }

  /** A write of the attempt that holds the lease, refused with `LeaseLostError` once it does not. */
  async #fenced(
    operation: LeaseOperation,
    request: { pk: string; lease: LeaseToken; stepName?: string },
    update: string,
    values: Record<string, NativeAttributeValue>,
    stepNames: Record<string, string> = {},
  ): Promise<void> {
    const input = entryUpdate(this.tableName, request.pk, update, ENTRY_CONDITION.fenced, {
      ...values,
      ':owner': request.lease.owner,
      ':epoch': request.lease.epoch,
    });
    const step: Record<string, string> =
      request.stepName === undefined ? stepNames : { ...stepNames, '#step': request.stepName };
    try {
      await this.#client().send(
        new UpdateCommand({
          ...input,
          ExpressionAttributeNames: { ...input.ExpressionAttributeNames, ...step },
        }),
      );
    } catch (error) {
      if (!isException(error, DynamoDBException.ConditionalCheckFailed)) throw translate(error);
      throw new LeaseLostError(operation, request.stepName, error);
    }
  }

  /** The item a refused condition found (read again if DynamoDB did not return it). */
  async #refusedItem(error: unknown, pk: string): Promise<Record<string, unknown>> {
    if (!isException(error, DynamoDBException.ConditionalCheckFailed)) throw translate(error);
    const { Item } = error as { Item?: Record<string, never> };
    if (Item !== undefined) return unmarshall(Item);
    const read = await this.#readItem(pk);
    // Gone between the refusal and the read: a conflict, which the caller retries.
    if (read === undefined) {
      throw new TransientStoreError(TransientReason.TransactionConflict, error);
    }
    return read;
  }
}
