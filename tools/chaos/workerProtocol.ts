import type { LocalMapping } from '../local/provisionFromTemplate.js';
import type { ChaosConsumer } from './ChaosTraffic.js';
import type { InjectedFault } from './injectFaults.js';

/**
 * The moments at which the chaos run kills a process with SIGKILL: six around the inbox
 * transaction, four inside the notifier's steps, two in the ledger's outbox relay and one right
 * after a commit that published.
 */
export const CrashPoint = {
  /** The handler ran; its transaction is about to be sent. */
  BeforeTransaction: 'beforeTransaction',
  /** Every record of the batch is settled, some committed; the batch response is not out. */
  AfterCommit: 'afterCommit',
  /** Some records of the batch committed, others have not. */
  MidBatch: 'midBatch',
  /** A slow handler holds a message past its visibility timeout; another consumer gets it. */
  SlowHandler: 'slowHandler',
  /** Two consumers hold copies of one event (same key, two SQS messages) at once. */
  ConcurrentCopies: 'concurrentCopies',
  /** A handler hangs past the batch's deadline; the batch has answered without it. */
  HangingHandler: 'hangingHandler',
  /** A step's external effect happened (email sent, receipt written); its journal write has not. */
  AfterEffect: 'afterEffect',
  /** A step's journal write was applied; the handler has not gone on. */
  AfterJournal: 'afterJournal',
  /** A heartbeat renewing the lease is about to go out, or was just applied. */
  DuringHeartbeat: 'duringHeartbeat',
  /**
   * The process froze (SIGSTOP) holding a lease until it lapsed and another worker claimed the
   * entry; resumed, its later writes (journal, heartbeat, release, commit) must all be refused.
   */
  LeaseTakeover: 'leaseTakeover',
  /** The relay sent its invocation's messages; its answer (the mapping's checkpoint) is not out. */
  RelayAfterSend: 'relayAfterSend',
  /** The relay sent some of its invocation's messages, others are not sent yet. */
  RelayMidBatch: 'relayMidBatch',
  /** A transaction carrying outgoing messages (the ledger's) committed; its answer is not read. */
  PublishCommitted: 'publishCommitted',
} as const;
/** One of {@link CrashPoint}. */
export type CrashPoint = (typeof CrashPoint)[keyof typeof CrashPoint];

/** How the report names each crash point. */
export const CRASH_POINT_LABELS: Readonly<Record<CrashPoint, string>> = {
  beforeTransaction: '1 before the transaction is sent',
  afterCommit: '2 after commit, before the batch response',
  midBatch: '3 mid-batch, some records committed',
  slowHandler: '4 slow handler past its visibility timeout',
  concurrentCopies: '5 two consumers holding copies at once',
  hangingHandler: '6 hanging handler, batch answered at its deadline',
  afterEffect: '7 step effect done, its journal write not sent',
  afterJournal: '8 step journaled, the handler not gone on',
  duringHeartbeat: '9 during a lease heartbeat',
  leaseTakeover: '10 lease lapsed in a freeze, taken over',
  relayAfterSend: '11 relay sent its batch, answer not out',
  relayMidBatch: '12 relay mid-batch, some messages sent',
  publishCommitted: '13 commit with outgoing messages, answer unread',
};

/** The crash points inside steps (the notifier's), which only a consumer with steps reaches. */
export const STEP_CRASH_POINTS: readonly CrashPoint[] = [
  CrashPoint.AfterEffect,
  CrashPoint.AfterJournal,
  CrashPoint.DuringHeartbeat,
  CrashPoint.LeaseTakeover,
];

/** The crash points inside the outbox relay's process. */
export const RELAY_CRASH_POINTS: readonly CrashPoint[] = [
  CrashPoint.RelayAfterSend,
  CrashPoint.RelayMidBatch,
];

/** Everything a worker process needs, passed in its `CHAOS_WORKER` environment variable. */
export interface WorkerConfig {
  readonly workerId: number;
  readonly consumer: ChaosConsumer;
  readonly mapping: LocalMapping;
  /** Where the worker's DynamoDB and SQS clients send their requests. */
  readonly endpoints: { readonly dynamodb: string; readonly sqs: string };
  /** Where this worker is killed, if it is; it passes `crashAfter` earlier occurrences first. */
  readonly crashPoint: CrashPoint | undefined;
  readonly crashAfter: number;
  readonly faultRate: number;
  /** Whether this worker's processor reads the inbox before running the handler. */
  readonly precheck: boolean;
  /** Whether this worker's processor shares transactions between messages (`coalesce`). */
  readonly coalesce: boolean;
  /** A table outside the reference stack: every transaction adds one to its event's counter. */
  readonly probeTable: string;
  /** Seed of this worker's fault stream and coin flips. */
  readonly seed: number;
  readonly visibilitySeconds: number;
}

/** A received message: its SQS id and, when the body parses, its event id. */
export interface HeldMessage {
  readonly messageId: string;
  readonly key: string | undefined;
  /** The `outbox.messageId` attribute of a message the relay sent. */
  readonly outboxId?: string;
}

/**
 * A worker standing at its crash point. It is written synchronously to the worker's crash
 * channel (file descriptor {@link CRASH_CHANNEL_FD}), after which the worker freezes.
 */
export interface CrashReport {
  readonly type: 'crash';
  readonly point: CrashPoint;
  readonly detail: string;
  /** At points 4 and 5: the message, so the supervisor can tell who else holds it at the kill. */
  readonly message?: HeldMessage;
  /** At point 10: the frozen worker's writes after its resume, refused and applied. */
  readonly staleWrites?: { readonly refused: number; readonly applied: number };
}

/**
 * What a worker with steps did to one inbox entry, written synchronously to the crash channel
 * before (`intent`) or after (`outcome`) the request, so a kill loses none of the intents:
 * a claim's answer (its epoch), a step's effect about to go out, a journal write (its `at`
 * tells which write the entry kept), a commit with a lease.
 */
export type StepReport =
  | { readonly type: 'claimed'; readonly pk: string; readonly epoch: number }
  | {
      readonly type: 'effect';
      readonly pk: string;
      readonly step: string;
      readonly epoch: number | undefined;
    }
  | {
      readonly type: 'journalWrite';
      readonly pk: string;
      readonly step: string;
      readonly epoch: number;
      /** The step's record as written: the entry keeps one, which names its writer. */
      readonly record: { readonly result: string; readonly at: string };
    }
  /** A journal write's answer: applied. */
  | {
      readonly type: 'journaled';
      readonly pk: string;
      readonly step: string;
      readonly epoch: number;
      /** The record's time: with the epoch, names the write (`journalWrite`) that was applied. */
      readonly at: string;
    }
  | {
      readonly type: 'commit';
      readonly pk: string;
      readonly epoch: number;
      readonly outcome: 'committed' | 'refused' | 'failed';
    }
  | {
      /** A worker at point 10 froze itself: SIGSTOP it until `pk`'s epoch passes `epoch`. */
      readonly type: 'freeze';
      readonly pk: string;
      readonly epoch: number;
    }
  /** An update of an inbox entry the worker cannot tell apart: the tooling is stale. */
  | { readonly type: 'unknownEntryWrite'; readonly detail: string };

/** The metric a worker reports when a copy reached the commit and lost the inbox condition. */
export const INBOX_CONDITION_LOST = 'ChaosInboxConditionLost';

/**
 * The metric a worker at point 6 reports when its batch did not answer before the function
 * timeout, or answered without reporting the hung record failed.
 */
export const HUNG_BATCH_LATE = 'ChaosHungBatchLate';

/** The notifier workers' lease: heartbeats every 500 ms renew it, and a freeze outlives it. */
export const NOTIFIER_LEASE_MILLIS = 1_500;

/** The longest extra latency of one SES or S3 call of the notifier's steps, a slow downstream. */
export const SLOW_DOWNSTREAM_MILLIS = 600;

/** The function timeout a worker at point 6 gives its batches (the deadline comes 1 s before). */
export const HANGING_FUNCTION_TIMEOUT_MILLIS = 2_500;

/** The worker's file descriptor for crash reports: a pipe of its own, next to the IPC channel. */
export const CRASH_CHANNEL_FD = 4;

/** What a worker tells the supervisor. */
export type WorkerReport =
  | { readonly type: 'received'; readonly messages: readonly HeldMessage[] }
  | { readonly type: 'settled'; readonly messageIds: readonly string[] }
  | { readonly type: 'fault'; readonly fault: InjectedFault }
  | { readonly type: 'metric'; readonly name: string; readonly value: number }
  | CrashReport
  | StepReport
  | {
      readonly type: 'question';
      readonly id: number;
      /** `receivedElsewhere`: has another worker received this very message since? (waits)
       *  `copyHeldElsewhere`: does another worker hold another message with this key now? */
      readonly question: 'receivedElsewhere' | 'copyHeldElsewhere';
      readonly message: HeldMessage;
      readonly waitMillis: number;
    };

/** Everything a relay process needs, passed in its `CHAOS_RELAY` environment variable. */
export interface RelayWorkerConfig {
  readonly workerId: number;
  /** Where its SQS, SNS and EventBridge clients send (the emulator). */
  readonly endpoint: string;
  /** The relay's dead-letter queue (messages a destination refuses). */
  readonly deadLetterQueueUrl: string;
  readonly crashPoint: CrashPoint | undefined;
  readonly crashAfter: number;
  readonly faultRate: number;
  readonly seed: number;
  /** The invocation's time limit: the relay stops starting records a second before it. */
  readonly timeoutMillis: number;
}

/** What the relay's host (the chaos run's stream mapping) and a relay process tell each other. */
export type RelayInvocation =
  | {
      readonly type: 'invoke';
      readonly id: number;
      readonly event: { readonly Records: readonly unknown[] };
    }
  | { readonly type: 'disarm' };
export type RelayReport =
  | { readonly type: 'ready' }
  | {
      readonly type: 'response';
      readonly id: number;
      readonly response: { readonly batchItemFailures: ReadonlyArray<{ itemIdentifier: string }> };
    }
  | { readonly type: 'error'; readonly id: number; readonly message: string }
  | { readonly type: 'fault'; readonly fault: InjectedFault }
  | { readonly type: 'metric'; readonly name: string; readonly value: number };

/** What the supervisor tells a worker. */
export type SupervisorCommand =
  | { readonly type: 'answer'; readonly id: number; readonly yes: boolean }
  | { readonly type: 'disarm' }
  /** After a freeze: whether another worker claimed the entry while this one was stopped. */
  | { readonly type: 'resumed'; readonly pk: string; readonly takenOver: boolean };
