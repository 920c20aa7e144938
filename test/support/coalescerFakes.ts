/** Fake coalescing stores and helpers for the coalescer's unit tests. */

import type { CoalescerSettings } from '../../src/coalescing/CoalescerSettings.js';
import { type CoalescingStore, CommitCoalescer } from '../../src/coalescing/CommitCoalescer.js';
import { InboxStatus } from '../../src/constants/index.js';
import type { CommitRequest, PreparedCommit } from '../../src/core/InboxStore.js';
import { buildEntry } from '../../src/core/inboxEntry.js';
import { TransactionLimit, TransactionLimitError } from '../../src/errors.js';
import type { BatchPrecheck } from '../../src/precheck/BatchPrecheck.js';
import { recordingLogger } from './sqsRecords.js';

export function requestFor(
  key: string,
  operations: CommitRequest['operations'] = [],
): CommitRequest {
  const entry = buildEntry({
    consumer: 'unit',
    key,
    messageId: `m-${key}`,
    payloadHash: 'h',
    nowMillis: 1_700_000_000_000,
    ttlSeconds: 60,
  });
  return { entry, operations, nowEpochSeconds: 1_700_000_000 };
}

/**
 * A store whose shared transactions are all refused as a whole (as DynamoDB refuses a merged
 * update it cannot apply), every message crediting one hot account, and which counts the
 * commits in flight at once.
 */
export function refusingStore() {
  let inFlight = 0;
  let mostInFlight = 0;
  const store: CoalescingStore = {
    find: async () => undefined,
    prepareCommit: async (request): Promise<PreparedCommit> => ({
      request,
      items: [],
      itemIds: [request.entry.pk, 'accounts#hot'],
      mergeableIds: new Set(['accounts#hot']),
      bytes: 100,
    }),
    commitTogether: async () => {
      throw new TransactionLimitError(
        TransactionLimit.InvalidOperation,
        'the merged update was refused',
        'Update accounts',
        'a number',
      );
    },
    commitPrepared: (prepared) => store.commit(prepared.request),
    commit: async () => {
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      return { committed: true };
    },
    claim: async () => {
      throw new Error('no steps here');
    },
    journal: async () => {},
    heartbeat: async () => {},
    release: async () => {},
  };
  return { store, mostInFlight: () => mostInFlight };
}

export const never = new AbortController().signal;

/** A coalescer as a processor without `coalesce` builds it. */
export function sameItemCoalescer(
  store: CoalescingStore,
  precheck?: BatchPrecheck,
  more: Partial<CoalescerSettings> = {},
) {
  return new CommitCoalescer(store, {
    ...more,
    precheck,
    runtime: { sleep: async () => {}, random: () => 0.5, now: () => 0 },
    logger: recordingLogger(),
    consumer: 'unit',
    attempts: 3,
    sameItemOnly: true,
  });
}

/** Four messages' commits through a coalescer on `store`, all at once; their results. */
export function commitFour(store: CoalescingStore) {
  const coalescer = new CommitCoalescer(store, {
    runtime: { sleep: async () => {}, random: () => 0.5, now: () => 0 },
    logger: recordingLogger(),
    consumer: 'unit',
    attempts: 3,
  });
  const signal = new AbortController().signal;
  return Promise.all(['a', 'b', 'c', 'd'].map((key) => coalescer.commit(requestFor(key), signal)));
}

/**
 * A store that credits the account named before a key's dash (`hot-1` credits `hot`), the
 * credit mergeable, and holds every transaction open until the test lets it answer. Records
 * the keys of each transaction sent, in order.
 */
export function gatedStore() {
  const sent: string[][] = [];
  const gates: (() => void)[] = [];
  const answer = () => new Promise<void>((resolve) => gates.push(resolve));
  const account = (request: CommitRequest) => `accounts#${request.entry.key.split('-')[0]}`;
  const store: CoalescingStore = {
    ...refusingStore().store,
    prepareCommit: async (request): Promise<PreparedCommit> => ({
      request,
      items: [],
      itemIds: [request.entry.pk, account(request)],
      mergeableIds: new Set([account(request)]),
      bytes: 100,
    }),
    commitPrepared: (prepared) => store.commit(prepared.request),
    commit: async (request) => {
      sent.push([request.entry.key]);
      await answer();
      return { committed: true };
    },
    commitTogether: async (members) => {
      sent.push(members.map(({ request }) => request.entry.key));
      await answer();
      return members.map(() => ({ result: { committed: true as const } }));
    },
  };
  return {
    store,
    sent,
    answerNext: () => gates.shift()?.(),
    answerAll: () => {
      for (const open of gates.splice(0)) open();
    },
  };
}

/** Lets every commit started so far reach the store. */
export const settle = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A store whose first shared transaction is cancelled by its first member's own inbox
 * condition (a copy committed before), its other members innocent; every other commits.
 * Records the keys of each transaction sent.
 */
export function copyCancelsFirstStore() {
  const { store } = gatedStore();
  const sent: string[][] = [];
  const existing = { ...requestFor('copy').entry, status: InboxStatus.Completed };
  store.commit = async (request) => {
    sent.push([request.entry.key]);
    return { committed: true };
  };
  store.commitTogether = async (members) => {
    sent.push(members.map(({ request }) => request.entry.key));
    if (sent.filter((keys) => keys.length > 1).length > 1) {
      return members.map(() => ({ result: { committed: true as const } }));
    }
    return members.map((_, at) =>
      at === 0 ? { result: { committed: false as const, existing } } : { innocent: true as const },
    );
  };
  return { store, sent };
}
