import type { WorldObservation } from './WorldObservation.js';

/**
 * What the inbox-aware redrive sends back, judged one copy at a time (each failure one line):
 * - FIFO: a copy is sent only when no earlier message of its group is still in the DLQ, so a
 *   group's copies go back in its DLQ order and none past a message the run kept or did not
 *   select;
 * - nothing goes back from a run told its consumer keys by the SQS message id.
 *
 * @example
 * ```ts
 * checkRedriveDecisions(world, failures);
 * ```
 */
export function checkRedriveDecisions(world: WorldObservation, failures: string[]): void {
  for (const send of world.redriveActions.filter((action) => action.action === 'send')) {
    const what = `redrive: ${send.operationId} sent back a copy of ${send.dlqMessageId}`;
    if (send.groupAhead !== undefined && send.groupAhead.length > 0) {
      failures.push(
        `${what} past ${send.groupAhead.join(', ')} of its FIFO group, still in the DLQ ahead of it`,
      );
    }
    if (world.config.redriveKeyIsMessageId) {
      failures.push(`${what}, though told its consumer keys by the SQS message id`);
    }
  }
}
