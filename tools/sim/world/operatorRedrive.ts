import { ledgerConsumer } from '../../../functions/ledger/paymentCaptured.js';
import type { ParsedMessage } from '../../../src/core/types.js';
import { DynamoDBInboxStore } from '../../../src/index.js';
import { redriveDeadLetters } from '../../../src/operations/redriveDeadLetters.js';
import { MessageSource } from '../../../src/sources/MessageSource.js';
import { SimDocumentClient } from '../dynamo/SimDocumentClient.js';
import type { SimDynamoDB } from '../dynamo/SimDynamoDB.js';
import type { Kernel } from '../kernel/Kernel.js';
import { WORLD_EPOCH_MILLIS } from '../lambda/SimLambda.js';
import type { SimQueue } from '../sqs/SimQueue.js';
import { SimRedriveQueue } from '../sqs/SimRedriveQueue.js';
import { WorldTables } from './consumerFunction.js';
import { type WorldConfig, WorldSource } from './WorldConfig.js';

/**
 * The operator's `sqs-inbox dlq redrive --apply`: the library's own run over the world's DLQ,
 * keying messages as the consumer does (its `key`, its declared source) and reading its inbox
 * table. Every copy it sends back is recorded in `sent`, for the oracle.
 *
 * @example
 * ```ts
 * await inboxAwareRedrive({ kernel, dynamo, queue, deadLetterQueue, config, sent }, 1);
 * ```
 */
export async function inboxAwareRedrive(
  world: {
    readonly kernel: Kernel;
    readonly dynamo: SimDynamoDB;
    readonly queue: SimQueue;
    readonly deadLetterQueue: SimQueue;
    readonly config: WorldConfig;
    readonly sent: Array<{ readonly messageId: string; readonly sentAtMillis: number }>;
    /** Why a run could not decide a message, or stopped: each a failure of the world. */
    readonly errors: string[];
  },
  run: number,
): Promise<void> {
  const { kernel, config } = world;
  const nowMillis = () => WORLD_EPOCH_MILLIS + kernel.nowMillis;
  const queue = new SimRedriveQueue(
    world.deadLetterQueue,
    [world.queue],
    () => kernel.nowMillis,
    WORLD_EPOCH_MILLIS,
  );
  const store = new DynamoDBInboxStore({
    tableName: WorldTables.Inbox,
    client: new SimDocumentClient({ dynamo: world.dynamo }).documentClient,
  });
  // Every world's consumer keys by the event id in the payload, as the ledger does.
  const key = ledgerConsumer.key as (message: ParsedMessage<unknown>) => string;
  await redriveDeadLetters({
    queue,
    reading: {
      store,
      consumer: config.consumer,
      sources: [config.source === WorldSource.Sns ? MessageSource.Sns : MessageSource.Sqs],
      key,
    },
    ttlSeconds: config.ttlSeconds,
    operationId: `redrive-${run}`,
    apply: true,
    includePermanent: config.redriveIncludesPermanent ?? false,
    to: world.queue.arn,
    ratePerSecond: 50,
    runtime: { now: nowMillis, sleep: (millis) => kernel.sleep('operator', millis) },
    onMessage: (outcome) => {
      if (outcome.decision === 'error')
        world.errors.push(`${outcome.dlqMessageId}: ${outcome.why}`);
    },
  });
  for (const message of queue.sent)
    world.sent.push({ messageId: message.messageId, sentAtMillis: message.sentAtMillis });
}
