import type { DynamoOperation } from '../../../src/testing/dynamo/SimDocumentClient.js';
import { SimDynamoDB } from '../../../src/testing/dynamo/SimDynamoDB.js';
import { SimEffects } from '../effects/SimEffects.js';
import { Kernel, RunEnd } from '../kernel/Kernel.js';
import { hash32, Prng } from '../kernel/Prng.js';
import { EventSourceMapping } from '../lambda/EventSourceMapping.js';
import { SimLambda, WORLD_EPOCH_MILLIS } from '../lambda/SimLambda.js';
import { Network } from '../network/Network.js';
import { SimQueue } from '../sqs/SimQueue.js';
import { ConflictRules } from './ConflictRules.js';
import { checkWorld } from './checkWorld.js';
import type { ChosenDelay } from './chosenDelays.js';
import { consumerFunction, type ObservedMetric, WorldTables } from './consumerFunction.js';
import { openCounters } from './guardedCounter.js';
import { livenessBoundMillis } from './livenessBound.js';
import { inboxAwareRedrive, type OperatorWorld } from './operatorRedrive.js';
import { buildOutboxWorld } from './outboxWorld.js';
import { type PaymentWorkload, type PlannedEvent, planPaymentWorkload } from './paymentWorkload.js';
import { previousReleaseContainers } from './previousRelease.js';
import { snsNotification } from './snsEnvelope.js';
import { drawWorldConfig, type WorldConfig, WorldConsumer, WorldSource } from './WorldConfig.js';
import type {
  InboxRead,
  RedriveAction,
  RedriveOutcome,
  RedriveReceivedAgain,
  WorldObservation,
} from './WorldObservation.js';

/**
 * How one world ended.
 *
 * @example
 * ```ts
 * const result = await runWorld({ seed: 7 });
 * if (result.failures.length > 0) console.log(result.failures);
 * ```
 */
export interface WorldResult {
  readonly seed: number;
  readonly config: WorldConfig;
  /** Broken invariants, each one line; empty when the world passed. */
  readonly failures: readonly string[];
  readonly traceHash: string;
  readonly trace: readonly string[];
  readonly steps: number;
  readonly simulatedMillis: number;
  readonly invocations: number;
  /** Transactions that committed several messages (`coalesce`) applied at DynamoDB, and how many it cancelled. */
  readonly sharedCommits: { readonly sent: number; readonly cancelled: number };
  /** The world's conflicts, both DynamoDBs': see {@link WorldConflicts}. */
  readonly conflicts: WorldConflicts;
}

/**
 * How often a world's DynamoDB requests met a conflict: `real`, refused because a transaction
 * in flight held an item (worlds with `rules` on only), and `injected` (the fault standing for
 * writers outside the world).
 *
 * @example
 * ```ts
 * if (result.conflicts.rules) console.log(`${result.conflicts.real} real conflicts`);
 * ```
 */
export interface WorldConflicts {
  readonly rules: boolean;
  readonly real: number;
  readonly injected: number;
}

/**
 * Options of {@link runWorld}.
 *
 * @example
 * ```ts
 * await runWorld({ seed: 7, keepTrace: true, config: { ...drawn, fifo: true } });
 * ```
 */
export interface WorldOptions {
  readonly seed: number;
  /** Keep the trace's lines (to print a replay), not only its hash. */
  readonly keepTrace?: boolean;
  /** Overrides the configuration the seed draws (to replay or shrink). */
  readonly config?: WorldConfig;
}

const MAX_STEPS = 200_000;
/** How often the simulated TTL process looks for expired entries. */
const SWEEP_EVERY_MILLIS = 60_000;

/**
 * Builds and runs one seeded world: a consumer (the real library code and handler) fed
 * by a producer through a simulated SQS queue and the Lambda event source mapping, over a
 * simulated DynamoDB and network, with the seed's faults, until it quiesces; then checks the
 * invariants.
 *
 * @example
 * ```ts
 * const { failures, traceHash } = await runWorld({ seed: 42 });
 * ```
 */
export async function runWorld(options: WorldOptions): Promise<WorldResult> {
  const random = new Prng(options.seed);
  const config = options.config ?? drawWorldConfig(random.derive('config'));
  const kernel = new Kernel(random.derive('schedule'), options.keepTrace ?? false);
  // Kernel time: what a ClientRequestToken's ten minutes count in, with or without ServerTime.
  const dynamo = createTables(new SimDynamoDB({ now: () => kernel.nowMillis }));
  const deadLetterQueue = new SimQueue({
    name: config.fifo ? 'ledger-dlq.fifo' : 'ledger-dlq',
    fifo: config.fifo,
    visibilityTimeoutMillis: 30_000,
    random: random.derive('dlq'),
  });
  const queue = new SimQueue({
    name: config.fifo ? 'ledger.fifo' : 'ledger',
    fifo: config.fifo,
    visibilityTimeoutMillis: config.visibilityTimeoutMillis,
    random: random.derive('queue'),
    redrive: { deadLetterQueue, maxReceiveCount: config.maxReceiveCount },
  });
  const workload = planPaymentWorkload(config, random.derive('workload'));
  for (const account of config.consumer === WorldConsumer.Ledger ? workload.accounts : []) {
    dynamo.putItem({
      TableName: WorldTables.Accounts,
      Item: {
        accountId: { S: account.accountId },
        currency: { S: account.currency },
        balanceCents: { N: '0' },
      },
    });
  }
  if (config.consumer === WorldConsumer.Counter && config.unknownCounterRate !== undefined) {
    openCounters(dynamo, workload.accounts);
  }
  const changesBefore = dynamo.changes.length;
  const changeMillis: number[] = [];
  const changeSentMillis: Array<number | undefined> = [];
  const changeInvocations: Array<number | undefined> = [];
  const stampChanges = (invocationId?: number, sentMillis?: number) => {
    while (changeMillis.length < dynamo.changes.length) {
      changeMillis.push(kernel.nowMillis);
      changeSentMillis.push(sentMillis);
      changeInvocations.push(invocationId);
    }
  };
  stampChanges();
  const inboxReads: InboxRead[] = [];
  const sharedCommits = { sent: 0, cancelled: 0 };
  const applied = (
    operation: DynamoOperation,
    invocationId: number | undefined,
    error?: unknown,
    sentMillis?: number,
  ) => {
    stampChanges(invocationId, sentMillis);
    // Several messages' commit carries a ClientRequestToken; a single message's has none.
    if (operation.name === 'TransactWriteItems' && operation.input.ClientRequestToken) {
      sharedCommits.sent++;
      if (error instanceof Error && error.name === 'TransactionCanceledException') {
        sharedCommits.cancelled++;
      }
    }
    const pk = (operation.input.Key as { pk?: { S?: string } } | undefined)?.pk?.S;
    if (operation.name === 'GetItem' && pk !== undefined && invocationId !== undefined) {
      inboxReads.push({
        invocationId,
        key: pk.slice(pk.indexOf('#') + 1),
        atMillis: kernel.nowMillis,
      });
    }
  };
  const network = new Network(kernel, random.derive('network'), config.faults);
  const rules = new ConflictRules(
    kernel,
    config.conflictRules ? random.derive('service') : undefined,
  );
  const effects = new SimEffects();
  const metrics: ObservedMetric[] = [];
  const retryDelays: ChosenDelay[] = [];
  const previous = previousReleaseContainers(config.previousReleaseShare, random.derive('release'));
  const second =
    config.outbox === undefined
      ? undefined
      : buildOutboxWorld({
          kernel,
          random: random.derive('outbox'),
          config,
          outbox: config.outbox,
          dynamo,
          network,
          changeMillis,
          rules,
        });
  const lambda = new SimLambda(
    kernel,
    random.derive('lambda'),
    config,
    consumerFunction({
      kernel,
      dynamo,
      network,
      queue,
      deadLetterQueue,
      config,
      applied: (operation, invocationId, error, sentMillis) => {
        applied(operation, invocationId, error, sentMillis);
        second?.notify();
      },
      effects,
      metrics,
      retryDelays,
      rules,
      previousRelease: previous.runs,
      ...(second ? { creditedUrl: second.creditedQueue.url } : {}),
    }),
  );
  new EventSourceMapping(kernel, random.derive('esm'), {
    queue,
    lambda,
    batchSize: config.batchSize,
    pollers: config.pollers,
    faults: config.faults,
  }).start();
  const upstream = produce(kernel, queue, workload, config);
  const redriveSends: Array<{ messageId: string; sentAtMillis: number }> = [];
  const redriveErrors: string[] = [];
  const redriveActions: RedriveAction[] = [];
  const redriveOutcomes: RedriveOutcome[] = [];
  const redriveReceivedAgain: RedriveReceivedAgain[] = [];
  const redrives = scheduleRedrives(kernel, random.derive('redrive'), {
    kernel,
    queue,
    deadLetterQueue,
    config,
    dynamo,
    sent: redriveSends,
    actions: redriveActions,
    errors: redriveErrors,
    outcomes: redriveOutcomes,
    receivedAgain: redriveReceivedAgain,
  });
  sweepTtl(kernel, random.derive('ttl'), dynamo, config, stampChanges);
  const quiet = () =>
    upstream.done() &&
    redrives.done() &&
    queue.messages.length === 0 &&
    !lambda.busy &&
    (second?.quiet() ?? true) &&
    !kernel.hasPending((actor) => actor === 'dynamodb' || actor === 'sqs');
  const end = await kernel.run(quiet, {
    maxMillis: livenessBoundMillis(config),
    maxSteps: MAX_STEPS,
  });
  const observation: WorldObservation = {
    config,
    workload,
    dynamo,
    changesBefore,
    queue,
    deadLetterQueue,
    invocations: lambda.invocations,
    changeMillis,
    changeSentMillis,
    changeInvocations,
    effects,
    inboxReads,
    quiesced: end === RunEnd.Done,
    end,
    previousReleaseActors: previous.actors,
    redriveSends,
    redriveErrors,
    redriveActions,
    redriveOutcomes,
    redriveReceivedAgain,
    metrics,
    retryDelays,
    ...(second ? { outbox: second } : {}),
  };
  const failures = checkWorld(observation);
  noteOutcome(kernel, observation, failures);
  return {
    seed: options.seed,
    config,
    failures,
    traceHash: kernel.trace.hash,
    trace: kernel.trace.lines,
    steps: kernel.trace.steps,
    simulatedMillis: kernel.nowMillis,
    invocations: lambda.invocations.length,
    sharedCommits,
    conflicts: conflictsOf(rules, [dynamo, ...(second ? [second.downstreamDynamo] : [])]),
  };
}

/**
 * Puts what the world left behind into its trace, so that two runs of a seed that took the same
 * steps but ended in another state (a change, a DLQ message, a verdict) have different traces.
 */
function noteOutcome(kernel: Kernel, world: WorldObservation, failures: readonly string[]): void {
  let state = hash32(failures.join('\n'));
  for (const change of world.dynamo.changes) {
    state = hash32(JSON.stringify([change.tableName, change.keys, change.newImage]), state);
  }
  for (const message of world.deadLetterQueue.history) {
    state = hash32(JSON.stringify([message.messageId, message.body, message.attributes]), state);
  }
  kernel.trace.note(
    kernel.nowMillis,
    `ends with ${world.dynamo.changes.length} changes, ${world.deadLetterQueue.history.length} DLQ messages, ${failures.length} failures (state ${state.toString(16).padStart(8, '0')})`,
  );
}

function conflictsOf(rules: ConflictRules, dynamos: readonly SimDynamoDB[]): WorldConflicts {
  let real = 0;
  let injected = 0;
  for (const dynamo of dynamos) {
    real += dynamo.transactionConflicts;
    injected += dynamo.injectedConflicts;
  }
  return { rules: rules.on, real, injected };
}

function createTables(dynamo: SimDynamoDB): SimDynamoDB {
  const table = (TableName: string, key: string) =>
    dynamo.createTable({
      TableName,
      KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: key, AttributeType: 'S' }],
    });
  table(WorldTables.Inbox, 'pk');
  dynamo.updateTimeToLive({
    TableName: WorldTables.Inbox,
    TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
  });
  table(WorldTables.Accounts, 'accountId');
  table(WorldTables.Entries, 'paymentId');
  table(WorldTables.Counters, 'counterId');
  table(WorldTables.Notifications, 'eventId');
  return dynamo;
}

/** The upstream: each event sent at its time, and again (a new SQS message) when planned. */
function produce(kernel: Kernel, queue: SimQueue, workload: PaymentWorkload, config: WorldConfig) {
  let pending = 0;
  const send = (event: (typeof workload.events)[number], copy: number) => {
    pending--;
    queue.send(
      {
        body: config.source === WorldSource.Sns ? published(event, copy, kernel) : event.body,
        ...(config.fifo
          ? // Unique per planned event (two may share an eventId, or a paymentId).
            {
              groupId: event.accountId,
              deduplicationId: `${event.eventId}/${event.paymentId}#${copy}`,
            }
          : {}),
      },
      kernel.nowMillis,
    );
  };
  for (const event of workload.events) {
    pending++;
    kernel.schedule({
      actor: 'upstream',
      label: `sends ${event.eventId}`,
      delayMillis: event.sendAtMillis,
      run: () => send(event, 1),
    });
    if (event.againAtMillis === undefined) continue;
    pending++;
    kernel.schedule({
      actor: 'upstream',
      label: `sends ${event.eventId} again`,
      delayMillis: event.againAtMillis,
      run: () => send(event, 2),
    });
  }
  return { done: () => pending === 0 };
}

/**
 * The SNS notification of an event: its second delivery is an SNS retry of the same notification
 * for even-numbered events, and a new publish (a publisher's retry) for odd ones.
 */
function published(event: PlannedEvent, copy: number, kernel: Kernel): string {
  const publish = Number(event.eventId.replace(/\D/g, '')) % 2 === 0 ? 1 : copy;
  return snsNotification(event.body, `sns-${event.eventId}-${publish}`, kernel.nowMillis);
}

/**
 * The operator's redrives: console-like (every DLQ message back to the queue, each with a new
 * messageId), or inbox-aware (`sqs-inbox dlq redrive --apply`: only what never committed).
 */
function scheduleRedrives(kernel: Kernel, random: Prng, world: OperatorWorld) {
  const { queue, deadLetterQueue, config } = world;
  let pending = config.redrives;
  let firstMillis: number | undefined;
  for (let n = 1; n <= config.redrives; n++) {
    const drawnMillis = random.int(30_000, config.faults.untilMillis + 600_000);
    firstMillis ??= drawnMillis;
    // With a short lock, the runs start a few seconds apart: the second meets the first's lock.
    const delayMillis = config.redriveLock
      ? firstMillis + random.derive(`overlap-${n}`).int(0, 3_000)
      : drawnMillis;
    kernel.schedule({
      actor: 'operator',
      label: `redrives the DLQ (${n}${config.redriveKind === 'inbox-aware' ? ', inbox-aware' : ''})`,
      delayMillis,
      run: () => {
        if (config.redriveKind === 'inbox-aware') {
          void inboxAwareRedrive(world, n, random.derive(`operator-${n}`))
            .catch((error: unknown) => {
              world.errors.push(
                `the run failed: ${(error as Error).name}: ${(error as Error).message}`,
              );
            })
            .finally(() => {
              pending--;
            });
          return;
        }
        pending--;
        for (const message of deadLetterQueue.takeAll()) {
          queue.send(
            {
              body: message.body,
              attributes: message.attributes,
              ...(config.fifo
                ? { groupId: message.groupId, deduplicationId: `redrive-${n}-${message.messageId}` }
                : {}),
            },
            kernel.nowMillis,
          );
        }
      },
    });
  }
  return { done: () => pending === 0 };
}

/** DynamoDB's TTL: expired entries deleted in the background, each after a seeded lag. */
function sweepTtl(
  kernel: Kernel,
  random: Prng,
  dynamo: SimDynamoDB,
  config: WorldConfig,
  deleted: () => void,
): void {
  if (config.ttlSeconds > 86_400) return;
  const scheduled = new Set<string>();
  const sweep = () => {
    for (const item of dynamo.expiredItems(WorldTables.Inbox, epochSeconds(kernel))) {
      const pk = item.pk?.S ?? '';
      if (scheduled.has(pk)) continue;
      scheduled.add(pk);
      kernel.schedule({
        actor: 'ttl',
        label: `deletes expired ${pk}`,
        delayMillis: random.int(0, config.ttlSweepLagMillis),
        run: () => {
          scheduled.delete(pk);
          // As DynamoDB's TTL does, only if the entry is still expired (it may have been written again).
          dynamo.deleteExpired(WorldTables.Inbox, { pk: { S: pk } }, epochSeconds(kernel));
          deleted();
        },
      });
    }
    kernel.schedule({ actor: 'ttl', label: 'sweeps', delayMillis: SWEEP_EVERY_MILLIS, run: sweep });
  };
  kernel.schedule({ actor: 'ttl', label: 'sweeps', delayMillis: SWEEP_EVERY_MILLIS, run: sweep });
}

/** The world's true time in epoch seconds. */
function epochSeconds(kernel: Kernel): number {
  return Math.floor((WORLD_EPOCH_MILLIS + kernel.nowMillis) / 1000);
}
