import type { SimDynamoDB } from '../../../src/testing/dynamo/SimDynamoDB.js';
import type { SimEffects } from '../effects/SimEffects.js';
import type { RunEnd } from '../kernel/Kernel.js';
import type { Invocation } from '../lambda/SimLambda.js';
import type { SimQueue } from '../sqs/SimQueue.js';
import type { ChosenDelay } from './chosenDelays.js';
import type { ObservedMetric } from './consumerFunction.js';
import type { OutboxWorld } from './outboxWorld.js';
import type { PaymentWorkload, PlannedEvent } from './paymentWorkload.js';
import type { WorldConfig } from './WorldConfig.js';

/**
 * What a world left behind, for the oracle.
 *
 * @example
 * ```ts
 * const failures = checkWorld(observation);
 * ```
 */
export interface WorldObservation {
  readonly config: WorldConfig;
  readonly workload: PaymentWorkload;
  readonly dynamo: SimDynamoDB;
  /** Changes before this index set the world up (the accounts). */
  readonly changesBefore: number;
  readonly queue: SimQueue;
  readonly deadLetterQueue: SimQueue;
  readonly invocations: readonly Invocation[];
  /** When each change was applied (world millis), by its sequence less one. */
  readonly changeMillis: readonly number[];
  /** Which invocation's request made each change (none: the TTL sweeper), by sequence less one. */
  readonly changeInvocations: readonly (number | undefined)[];
  /** When the request that made each change was sent (world millis), if a function sent it. */
  readonly changeSentMillis: readonly (number | undefined)[];
  /** The emails and receipts the notifier's steps made. */
  readonly effects: SimEffects;
  /** Each inbox read a function made, when DynamoDB applied it. */
  readonly inboxReads: readonly InboxRead[];
  readonly quiesced: boolean;
  readonly end: RunEnd;
  /** The second hop, in a world whose ledger publishes through its outbox. */
  readonly outbox?: OutboxWorld;
  /** The consumer's containers that ran the previous release (`previousReleaseShare`). */
  readonly previousReleaseActors: ReadonlySet<string>;
  /** What the operator's inbox-aware redrives could not do (a run's error, a message's). */
  readonly redriveErrors: readonly string[];
  /** The copies the operator's inbox-aware redrives sent back, with when (kernel millis). */
  readonly redriveSends: ReadonlyArray<{
    readonly messageId: string;
    readonly sentAtMillis: number;
  }>;
  /** Each send and delete of the operator's inbox-aware redrives, with the DLQ's lock then. */
  readonly redriveActions: readonly RedriveAction[];
  /** Each DLQ message's outcome in the operator's inbox-aware runs, in the order decided. */
  readonly redriveOutcomes: readonly RedriveOutcome[];
  /** The DLQ messages an inbox-aware run received again while it held them. */
  readonly redriveReceivedAgain: readonly RedriveReceivedAgain[];
  /** Every value the consumer's containers gave their metrics sink, in order. */
  readonly metrics: readonly ObservedMetric[];
  /** The delays the consumer's processor gave failed records and SQS accepted (`retry`), in order. */
  readonly retryDelays: readonly ChosenDelay[];
}

/**
 * A send or delete of an inbox-aware redrive run, with the DLQ's lock item as it stood at that
 * instant (world millis): its owner and its lease, if the item existed; for a send, what the
 * oracle needs to judge it.
 *
 * @example
 * ```ts
 * const fenced = action.lockOwner === action.operationId && (action.lockUntilMillis ?? 0) > action.atMillis;
 * ```
 */
export interface RedriveAction {
  readonly operationId: string;
  readonly action: 'send' | 'delete';
  /** The DLQ message sent back (a copy of it) or deleted. */
  readonly dlqMessageId: string;
  readonly atMillis: number;
  readonly lockOwner?: string;
  readonly lockUntilMillis?: number;
  /** A FIFO send: the messages of its group still in the DLQ ahead of it (sent there before it). */
  readonly groupAhead?: readonly string[];
  /**
   * A send: the run's last read of an inbox entry before it (the read of this message's), as the
   * length of the change log then and the world's time.
   */
  readonly entryRead?: { readonly changes: number; readonly atMillis: number };
}

/**
 * A DLQ message's outcome in an inbox-aware run, as the run reported it.
 *
 * @example
 * ```ts
 * const sent = world.redriveOutcomes.filter((outcome) => outcome.action === 'sent');
 * ```
 */
export interface RedriveOutcome {
  readonly operationId: string;
  readonly dlqMessageId: string;
  readonly decision: string;
  readonly action: string;
}

/**
 * A DLQ message an inbox-aware run received again before it deleted or released it (kernel
 * millis): the run's hold of it had lapsed, so any reader could have received it.
 *
 * @example
 * ```ts
 * const lapsed = world.redriveReceivedAgain.filter((again) => again.operationId === 'redrive-1');
 * ```
 */
export interface RedriveReceivedAgain {
  readonly operationId: string;
  readonly dlqMessageId: string;
  readonly heldSinceMillis: number;
  readonly atMillis: number;
}

/**
 * An inbox read (`GetItem` of an entry) as DynamoDB applied it: by which invocation, of which
 * key, when.
 *
 * @example
 * ```ts
 * const lastRead = world.inboxReads.filter((read) => read.invocationId === sender.id).at(-1);
 * ```
 */
export interface InboxRead {
  readonly invocationId: number;
  readonly key: string;
  readonly atMillis: number;
}

/**
 * The planned event a record's body carries (in an SNS envelope or as is), if any.
 *
 * @example
 * ```ts
 * const event = eventOf(message.body);
 * ```
 */
export type EventOf = (body: string) => PlannedEvent | undefined;
