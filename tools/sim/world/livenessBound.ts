import type { WorldConfig } from './WorldConfig.js';

/**
 * How long a world may run before it must have quiesced (world millis): after faults stop,
 * every message is settled within its receives, late requests included. On a FIFO queue the
 * messages of a group that keep failing (copies past a short TTL, a collided payment) wait for
 * each other, so the bound grows with the messages a group can hold. With a retry backoff each
 * receive may wait its delay too: a message's share grows by `maxReceiveCount × maxDelaySeconds`.
 *
 * @example
 * ```ts
 * await kernel.run(quiet, { maxMillis: livenessBoundMillis(config), maxSteps });
 * ```
 */
export function livenessBoundMillis(config: WorldConfig): number {
  const backoffMillis = (config.retry?.backoff?.maxDelaySeconds ?? 0) * 1000;
  const perMessageMillis =
    (config.maxReceiveCount + 2) * (config.visibilityTimeoutMillis + config.functionTimeoutMillis) +
    config.maxReceiveCount * backoffMillis;
  const lateRequestsMillis = 10 * 60_000;
  const inLine = config.fifo ? 2 * config.events : 1;
  // The second hop: the relay's retries of a batch (11 attempts), then the downstream queue.
  const relayMillis = 11 * (config.functionTimeoutMillis + 2_000);
  const downstreamInLine = config.outbox?.fifo ? 2 * config.events : 1;
  const secondHopMillis =
    config.outbox === undefined ? 0 : relayMillis + downstreamInLine * perMessageMillis;
  // A paused operator's run: a pause before each receive, at most one receive per DLQ message
  // (each event twice, and a copy of each dead-lettered again).
  const pausedMillis = config.redrives * (config.redrivePauseMillis ?? 0) * (4 * config.events + 3);
  return (
    config.faults.untilMillis +
    lateRequestsMillis +
    (config.redrives + 1) * inLine * perMessageMillis +
    secondHopMillis +
    pausedMillis
  );
}
