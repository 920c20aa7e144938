import type { Duration } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { InboxValidationError } from './InboxValidationError.js';
import { inRange } from './inRange.js';

/** What {@link checkEventBridgeSource} reads of the consumer and of the source's options. */
interface EventBridgeSourceCheck {
  readonly scope: IConstruct;
  readonly fifo: boolean;
  readonly contentBasedDeduplication: boolean;
  readonly retryAttempts?: number;
  readonly maxEventAge?: Duration;
  readonly messageGroupId?: string;
}

/**
 * Refuses at synth what EventBridge would refuse at deploy (its target retry policy: 0 to 185
 * attempts, 60 seconds to 24 hours, whole numbers;
 * https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_RetryPolicy.html) or deliver
 * wrongly (a FIFO queue without a group or without content-based deduplication). Tokens pass.
 *
 * @example
 * ```ts
 * checkEventBridgeSource({ scope: consumer, fifo: false, contentBasedDeduplication: false, retryAttempts: 200 }); // throws
 * ```
 */
export function checkEventBridgeSource(check: EventBridgeSourceCheck): void {
  const where = check.scope;
  if (check.retryAttempts !== undefined)
    inRange(where, 'retryAttempts of an EventBridge source', check.retryAttempts, 0, 185);
  if (check.maxEventAge !== undefined && !check.maxEventAge.isUnresolved()) {
    const seconds = check.maxEventAge.toSeconds({ integral: false });
    inRange(where, 'maxEventAge of an EventBridge source (seconds)', seconds, 60, 86_400);
  }
  if (!check.fifo) return;
  if (check.messageGroupId === undefined) {
    throw new InboxValidationError(
      where,
      `an EventBridge source of a FIFO queue needs a messageGroupId (every event of the rule goes to that group).`,
    );
  }
  if (!check.contentBasedDeduplication) {
    throw new InboxValidationError(
      where,
      `a FIFO queue fed by EventBridge needs queue.contentBasedDeduplication: true — EventBridge sends no deduplication id, and SQS refuses a FIFO message without one.`,
    );
  }
}
