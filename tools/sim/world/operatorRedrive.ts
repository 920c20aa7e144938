import { ledgerConsumer } from '../../../functions/ledger/paymentCaptured.js';
import { OperationLock, operationLockPk } from '../../../src/aws/OperationLock.js';
import type { ParsedMessage } from '../../../src/core/types.js';
import { DynamoDBInboxStore } from '../../../src/index.js';
import { RedriveLockedError } from '../../../src/operations/RunLease.js';
import type { ConsumerReading } from '../../../src/operations/recoverKey.js';
import { redriveDeadLetters } from '../../../src/operations/redriveDeadLetters.js';
import { MessageSource } from '../../../src/sources/MessageSource.js';
import { applyAtOnce, SimDocumentClient } from '../../../src/testing/dynamo/SimDocumentClient.js';
import type { SimDynamoDB } from '../../../src/testing/dynamo/SimDynamoDB.js';
import type { Kernel } from '../kernel/Kernel.js';
import type { Prng } from '../kernel/Prng.js';
import { WORLD_EPOCH_MILLIS } from '../lambda/SimLambda.js';
import type { SimQueue } from '../sqs/SimQueue.js';
import { SimRedriveQueue } from '../sqs/SimRedriveQueue.js';
import { WorldTables } from './consumerFunction.js';
import { operatorSelection } from './operatorSelection.js';
import { type WorldConfig, WorldSource } from './WorldConfig.js';
import type { RedriveAction, RedriveOutcome, RedriveReceivedAgain } from './WorldObservation.js';

/** What the operator's runs share with the world: its queues, tables and clock, and the oracle's records. */
export interface OperatorWorld {
  readonly kernel: Kernel;
  readonly dynamo: SimDynamoDB;
  readonly queue: SimQueue;
  readonly deadLetterQueue: SimQueue;
  readonly config: WorldConfig;
  readonly sent: Array<{ readonly messageId: string; readonly sentAtMillis: number }>;
  /** Each send and delete of a run, with the DLQ's lock item as it stood then. */
  readonly actions: RedriveAction[];
  /** Why a run could not decide a message, or stopped: each a failure of the world. */
  readonly errors: string[];
  /** Each message's outcome, as the runs report them. */
  readonly outcomes: RedriveOutcome[];
  /** The messages a run received again while it held them. */
  readonly receivedAgain: RedriveReceivedAgain[];
}

/** How often the operator, refused by another run's lock, tries again before giving up. */
const LOCKED_TRIES = 4;

/**
 * The operator's `sqs-inbox dlq redrive --apply`: the library's own run over the world's DLQ,
 * keying messages as the consumer does (its `key`, its declared source) or, told so, by the
 * message id (`--key-is-message-id`), reading its inbox table, and holding the DLQ's lock
 * (`OperationLock`) there as the command does; with the world's selection, chosen from the DLQ
 * as the run starts. Refused by another run's lock, the operator tries again a little later.
 * Every copy it sends back is recorded in `sent`, every send and delete in `actions`, every
 * outcome in `outcomes`, for the oracle.
 *
 * @example
 * ```ts
 * await inboxAwareRedrive(world, 1, random.derive('operator-1'));
 * ```
 */
export async function inboxAwareRedrive(world: OperatorWorld, run: number, random: Prng) {
  for (let tries = 1; ; tries++) {
    try {
      return await redriveOnce(world, run, random);
    } catch (error) {
      if (!(error instanceof RedriveLockedError) || tries === LOCKED_TRIES) throw error;
      const leaseMillis = world.config.redriveLock?.leaseMillis ?? 60_000;
      await world.kernel.sleep('operator', random.int(leaseMillis / 2, 2 * leaseMillis));
    }
  }
}

async function redriveOnce(world: OperatorWorld, run: number, random: Prng): Promise<void> {
  const { kernel, config } = world;
  const operationId = `redrive-${run}`;
  const reads = entryReads(world);
  const queue = operatorQueue(world, operationId, reads.last);
  const selection = operatorSelection(
    config.redriveSelection,
    world.deadLetterQueue,
    WORLD_EPOCH_MILLIS,
    random.derive('selection'),
  );
  const lockPk = operationLockPk('dlq', world.deadLetterQueue.arn);
  await redriveDeadLetters({
    queue,
    reading: consumerReading(
      config,
      new DynamoDBInboxStore({ tableName: WorldTables.Inbox, client: reads.client }),
    ),
    ttlSeconds: config.ttlSeconds,
    operationId,
    apply: true,
    includePermanent: config.redriveIncludesPermanent ?? false,
    to: world.queue.arn,
    ...(selection ? { selection } : {}),
    ratePerSecond: 50,
    lock: new OperationLock(reads.client, WorldTables.Inbox, lockPk, operationId),
    ...(config.redriveLock ? { lockLeaseMillis: config.redriveLock.leaseMillis } : {}),
    runtime: {
      now: () => nowMillis(kernel),
      sleep: (millis) => kernel.sleep('operator', stalled(millis)),
    },
    onMessage: (outcome) => {
      const { dlqMessageId, decision, action } = outcome;
      world.outcomes.push({ operationId, dlqMessageId, decision, action });
      if (decision === 'error') world.errors.push(`${dlqMessageId}: ${outcome.why}`);
    },
  });
  for (const message of queue.sent)
    world.sent.push({ messageId: message.messageId, sentAtMillis: message.sentAtMillis });

  /** One wait in five of a stalling operator lasts its stall too (a paused laptop, a GC). */
  function stalled(millis: number): number {
    const stallMillis = config.redriveLock?.stallMillis;
    return stallMillis !== undefined && random.chance(0.2) ? millis + stallMillis : millis;
  }
}

/** The world's wall clock, as the operator's machine reads it. */
function nowMillis(kernel: Kernel): number {
  return WORLD_EPOCH_MILLIS + kernel.nowMillis;
}

/**
 * The run's DynamoDB client, which notes each read of an inbox entry: the last, for a send, is
 * the read of that message's entry.
 */
function entryReads(world: OperatorWorld) {
  let last: RedriveAction['entryRead'];
  const client = new SimDocumentClient({
    dynamo: world.dynamo,
    transport: (operation) => {
      if (operation.name === 'GetItem' && operation.tableNames.includes(WorldTables.Inbox)) {
        last = { changes: world.dynamo.changes.length, atMillis: nowMillis(world.kernel) };
      }
      return applyAtOnce(operation);
    },
  }).documentClient;
  return { client, last: () => last };
}

/**
 * The world's DLQ as the run reads it: each send and delete recorded with the DLQ's lock then
 * (and, for a send, its group's messages ahead of it and the read of its entry), each message
 * the run received again while it held it recorded too, and the operator's pause before each
 * receive in a world with pauses.
 */
function operatorQueue(
  world: OperatorWorld,
  operationId: string,
  lastRead: () => RedriveAction['entryRead'],
): SimRedriveQueue {
  const { kernel, deadLetterQueue } = world;
  const lockPk = operationLockPk('dlq', deadLetterQueue.arn);
  const sendFacts = (dlqMessageId: string) => {
    const entryRead = lastRead();
    return { ...(entryRead ? { entryRead } : {}), ...groupAhead(deadLetterQueue, dlqMessageId) };
  };
  const pauseMillis = world.config.redrivePauseMillis;
  return new SimRedriveQueue(
    deadLetterQueue,
    [world.queue],
    () => kernel.nowMillis,
    WORLD_EPOCH_MILLIS,
    {
      witness: (action, dlqMessageId) =>
        world.actions.push({
          operationId,
          action,
          dlqMessageId,
          atMillis: nowMillis(kernel),
          ...lockHolder(world, lockPk),
          ...(action === 'send' ? sendFacts(dlqMessageId) : {}),
        }),
      ...(pauseMillis ? { beforeReceive: () => kernel.sleep('operator', pauseMillis) } : {}),
      receivedAgain: (dlqMessageId, heldSinceMillis) =>
        world.receivedAgain.push({
          operationId,
          dlqMessageId,
          heldSinceMillis,
          atMillis: kernel.nowMillis,
        }),
    },
  );
}

/**
 * How the operator's run reads the consumer: by the event id in the payload, as every world's
 * consumer keys (the ledger's key), from its declared source; or, told so, by the message id.
 */
function consumerReading(config: WorldConfig, store: DynamoDBInboxStore): ConsumerReading {
  const sources = [config.source === WorldSource.Sns ? MessageSource.Sns : MessageSource.Sqs];
  if (config.redriveKeyIsMessageId) {
    return { store, consumer: config.consumer, sources, keyIsMessageId: true };
  }
  const key = ledgerConsumer.key as (message: ParsedMessage<unknown>) => string;
  return { store, consumer: config.consumer, sources, key };
}

/** The messages of a FIFO DLQ message's group that the DLQ still holds ahead of it. */
function groupAhead(deadLetterQueue: SimQueue, dlqMessageId: string) {
  const message = deadLetterQueue.messages.find((m) => m.messageId === dlqMessageId);
  if (!deadLetterQueue.fifo || message === undefined) return {};
  const ahead = deadLetterQueue.messages.filter(
    (other) => other.groupId === message.groupId && other.sequence < message.sequence,
  );
  return { groupAhead: ahead.map((other) => other.messageId) };
}

/** The DLQ's lock item as it stands: its owner and lease, read at the instant of an action. */
function lockHolder(world: OperatorWorld, pk: string) {
  const item = world.dynamo.getItem({
    TableName: WorldTables.Inbox,
    Key: { pk: { S: pk } },
    ConsistentRead: true,
  }).Item;
  return {
    ...(item?.owner?.S === undefined ? {} : { lockOwner: item.owner.S }),
    ...(item?.leaseUntilMillis?.N === undefined
      ? {}
      : { lockUntilMillis: Number(item.leaseUntilMillis.N) }),
  };
}
