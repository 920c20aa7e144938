import { InboxEnvironment } from '../constants/values.js';
import { isQueueUrl } from '../core/optionChecks.js';
import { EnvironmentError } from '../errors.js';
import type { OutboxRelayOptions } from './createOutboxRelay.js';

/**
 * The relay's options from the environment the construct sets on its function: the dead-letter
 * queue (`INBOX_RELAY_DEAD_LETTER_QUEUE_URL`). Throws `EnvironmentError` naming it when it
 * is missing or no queue URL.
 *
 * @example
 * ```ts
 * import { Metrics } from '@aws-lambda-powertools/metrics';
 * const relay = createOutboxRelay({
 *   ...outboxRelayFromEnvironment(), observability: { metrics: new Metrics() },
 * });
 * ```
 * @public
 */
export function outboxRelayFromEnvironment(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Pick<OutboxRelayOptions, 'deadLetter'> {
  const name = InboxEnvironment.RelayDeadLetterQueueUrl;
  const deadLetterQueueUrl = env[name] ?? '';
  if (!isQueueUrl(deadLetterQueueUrl)) {
    throw new EnvironmentError(
      [name],
      deadLetterQueueUrl ? `is ${JSON.stringify(deadLetterQueueUrl)}` : 'is not set',
      "Deploy the relay with the InboxConsumer construct's outbox (sqs-inbox/cdk), which sets it, " +
        "or set it to the SQS URL of the relay's dead-letter queue.",
    );
  }
  return { deadLetter: { queueUrl: deadLetterQueueUrl } };
}
