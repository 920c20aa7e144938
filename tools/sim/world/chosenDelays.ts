import type { InboxLogger } from '../../../src/index.js';
import type { Kernel } from '../kernel/Kernel.js';
import type { Caller } from '../network/Network.js';

/**
 * A delay the processor gave a failed record, as it logged it once SQS accepted the change
 * (`message retry delayed`): the container and invocation, the record, the delay, why, and when (kernel millis).
 *
 * @example
 * ```ts
 * const backoffs = world.retryDelays.filter((delay) => delay.cause === 'backoff');
 * ```
 */
export interface ChosenDelay {
  /** The container that logged it. */
  readonly actor: string;
  readonly invocationId: number | undefined;
  readonly messageId: string;
  readonly delaySeconds: number;
  /** `backoff` or `leaseHeld` (the library's `RetryCause`). */
  readonly cause: string;
  readonly atMillis: number;
}

/** The line the processor logs for each delay SQS applied (see `retimeFailures`). */
export const RETRY_DELAYED_LINE = 'message retry delayed';

/**
 * `logger`, whose `info` also keeps each `message retry delayed` line as a {@link ChosenDelay}
 * of the container's current invocation (and notes it in the trace); other `info` lines go to
 * `logger` as they are.
 *
 * @example
 * ```ts
 * const logger = keepingChosenDelays(traceLogger(kernel, actor), { kernel, actor, caller, delays });
 * ```
 */
export function keepingChosenDelays(
  logger: InboxLogger,
  container: {
    readonly kernel: Kernel;
    readonly actor: string;
    readonly caller: Pick<Caller, 'invocationId'>;
    readonly delays: ChosenDelay[];
  },
): InboxLogger {
  const { kernel, actor, caller, delays } = container;
  const info = (message: string, ...extra: Array<Record<string, unknown>>) => {
    const fields = extra[0];
    if (message !== RETRY_DELAYED_LINE || fields === undefined) {
      logger.info(message, ...extra);
      return;
    }
    const delay: ChosenDelay = {
      actor,
      invocationId: caller.invocationId,
      messageId: String(fields.messageId),
      delaySeconds: Number(fields.delaySeconds),
      cause: String(fields.cause),
      atMillis: kernel.nowMillis,
    };
    delays.push(delay);
    kernel.trace.note(
      kernel.nowMillis,
      `${actor} info: ${message} (${delay.messageId}): ${delay.delaySeconds} s, ${delay.cause}`,
    );
  };
  return {
    debug: (message, ...extra) => logger.debug(message, ...extra),
    info,
    warn: (message, ...extra) => logger.warn(message, ...extra),
    error: (message, ...extra) => logger.error(message, ...extra),
  };
}
