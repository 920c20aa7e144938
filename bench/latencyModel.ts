import { setTimeout as sleep } from 'node:timers/promises';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Admission, ConflictModel } from './conflictModel.js';

/**
 * Published p50 latencies of DynamoDB from a Lambda client, in milliseconds (Alex DeBrie,
 * dynamodb-performance-testing, 400 runs): a single-item operation 7.55; a 25-item
 * BatchWriteItem 10.2; a 5-item TransactWriteItems 25.3 and a 25-item one 32.1. A transaction
 * of n items is modelled on the line through the two; a batch read of n keys on the line from a
 * single item to the 25-item batch write. Beyond 25 items the lines are extrapolated.
 */
export const PUBLISHED_P50_MILLIS = {
  singleItem: 7.55,
  batch25: 10.2,
  transact5: 25.3,
  transact25: 32.1,
} as const;

const TRANSACT_PER_ITEM = (PUBLISHED_P50_MILLIS.transact25 - PUBLISHED_P50_MILLIS.transact5) / 20;
const BATCH_PER_KEY = (PUBLISHED_P50_MILLIS.batch25 - PUBLISHED_P50_MILLIS.singleItem) / 24;

/** What one request costs in the model: latency, items written or read, and capacity. */
export interface ModelledRequest {
  readonly millis: number;
  /** Write capacity: 1 per item written (2 in a transaction), each item under 1 KB. */
  readonly writeUnits: number;
  /** Read capacity: 1 per item read with a strongly consistent read (0.5 eventually). */
  readonly readUnits: number;
}

/**
 * The modelled latency and capacity of a DynamoDB request at real DynamoDB, size-aware for
 * transactions and batch reads. Capacity assumes items under 1 KB (true of every item the
 * benchmark writes) and counts a refused write as if applied (DynamoDB bills refused
 * conditional writes).
 *
 * @example
 * ```ts
 * modelRequest('TransactWriteItemsCommand', { TransactItems: [a, b, c] }).millis; // ≈ 24.6
 * ```
 */
export function modelRequest(commandName: string, input: Record<string, unknown>): ModelledRequest {
  const single = PUBLISHED_P50_MILLIS.singleItem;
  switch (commandName) {
    case 'TransactWriteItemsCommand': {
      const items = (input.TransactItems as unknown[] | undefined)?.length ?? 1;
      const millis = PUBLISHED_P50_MILLIS.transact5 + TRANSACT_PER_ITEM * (items - 5);
      return { millis, writeUnits: 2 * items, readUnits: 0 };
    }
    case 'BatchGetItemCommand': {
      const requests = Object.values(
        (input.RequestItems as Record<string, { Keys?: unknown[]; ConsistentRead?: boolean }>) ??
          {},
      );
      const keys = requests.reduce((sum, request) => sum + (request.Keys?.length ?? 0), 0);
      const consistent = requests.every((request) => request.ConsistentRead === true);
      return {
        millis: single + BATCH_PER_KEY * Math.max(0, keys - 1),
        writeUnits: 0,
        readUnits: keys * (consistent ? 1 : 0.5),
      };
    }
    case 'GetItemCommand':
      return { millis: single, writeUnits: 0, readUnits: input.ConsistentRead ? 1 : 0.5 };
    case 'PutItemCommand':
    case 'UpdateItemCommand':
    case 'DeleteItemCommand':
      return { millis: single, writeUnits: 1, readUnits: 0 };
    default:
      return { millis: single, writeUnits: 0, readUnits: 0 };
  }
}

/**
 * What a client sent through the model: requests by operation, capacity, and for each request
 * the emulator's own time (what it took beyond the modelled wait).
 */
export interface Tally {
  readonly requests: Map<string, number>;
  /** Requests DynamoDB refused (a failed condition, a cancelled transaction), by operation. */
  readonly refused: Map<string, number>;
  writeUnits: number;
  /** Write capacity of the writes DynamoDB applied. */
  appliedWriteUnits: number;
  readUnits: number;
  /** Requests the conflict model refused: cancelled transactions and conflicting writes. */
  conflicts: number;
  readonly modelledMillis: number[];
  readonly emulatorMillis: number[];
}

/** An empty {@link Tally}. */
export function newTally(): Tally {
  return {
    requests: new Map(),
    refused: new Map(),
    writeUnits: 0,
    appliedWriteUnits: 0,
    readUnits: 0,
    conflicts: 0,
    modelledMillis: [],
    emulatorMillis: [],
  };
}

/**
 * Makes every request of `client` wait its modelled latency times `scale` before it is sent,
 * and counts it in `tally`. With `scale` 0 nothing waits (the bare emulator). With `conflicts`
 * (one model for every client of a run: one DynamoDB), a transaction holds its items from the
 * moment it is made until it answers — its modelled service time plus the emulator's — and a
 * request the model refuses fails after its own modelled latency without reaching the emulator.
 *
 * @example
 * ```ts
 * const tally = newTally();
 * modelLatency(client, 4, tally, new ConflictModel(keyAttributesOf(tables)));
 * ```
 */
export function modelLatency(
  client: DynamoDBClient,
  scale: number,
  tally: Tally,
  conflicts?: ConflictModel,
): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName);
      const input = args.input as Record<string, unknown>;
      const modelled = modelRequest(name, input);
      tally.requests.set(name, (tally.requests.get(name) ?? 0) + 1);
      tally.writeUnits += modelled.writeUnits;
      tally.readUnits += modelled.readUnits;
      const waitMillis = modelled.millis * scale;
      const admission: Admission = conflicts?.admit(name, input) ?? { release: () => {} };
      let sentMillis: number | undefined;
      try {
        if (waitMillis > 0) await sleep(waitMillis);
        if (admission.refusal) {
          tally.conflicts++;
          throw admission.refusal;
        }
        sentMillis = performance.now();
        const output = await next(args);
        tally.appliedWriteUnits += modelled.writeUnits;
        return output;
      } catch (error) {
        tally.refused.set(name, (tally.refused.get(name) ?? 0) + 1);
        throw error;
      } finally {
        admission.release?.();
        // A refused request never reached the emulator: it says nothing of the emulator's share.
        if (sentMillis !== undefined) {
          tally.modelledMillis.push(waitMillis);
          tally.emulatorMillis.push(performance.now() - sentMillis);
        }
      }
    },
    { step: 'initialize', name: 'benchLatencyModel', priority: 'low' },
  );
}
