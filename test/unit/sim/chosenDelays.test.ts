import { describe, expect, it } from 'vitest';
import type { InboxLogger } from '../../../src/index.js';
import { Kernel } from '../../../tools/sim/kernel/Kernel.js';
import { Prng } from '../../../tools/sim/kernel/Prng.js';
import { type ChosenDelay, keepingChosenDelays } from '../../../tools/sim/world/chosenDelays.js';

/** A logger that keeps every line it is given, by level. */
function keptLines(): { logger: InboxLogger; lines: string[] } {
  const lines: string[] = [];
  const keep = (level: string) => (message: string) => {
    lines.push(`${level}: ${message}`);
  };
  return {
    lines,
    logger: { debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error') },
  };
}

describe('keepingChosenDelays', () => {
  it('keeps each retry-delay line as a delay of the current invocation, noted in the trace, and passes every other line on', () => {
    const kernel = new Kernel(new Prng(1), true);
    const delays: ChosenDelay[] = [];
    const { logger, lines } = keptLines();
    const kept = keepingChosenDelays(logger, {
      kernel,
      actor: 'lambda-2',
      caller: { invocationId: 7 },
      delays,
    });

    kept.info('message retry delayed', {
      consumer: 'ledger',
      messageId: 'ledger-3',
      delaySeconds: 4,
      cause: 'backoff',
    });
    kept.info('message acknowledged', { messageId: 'ledger-4' });
    kept.warn('visibility changes failed');

    expect(delays).toEqual([
      {
        actor: 'lambda-2',
        invocationId: 7,
        messageId: 'ledger-3',
        delaySeconds: 4,
        cause: 'backoff',
        atMillis: 0,
      },
    ]);
    expect(lines).toEqual(['info: message acknowledged', 'warn: visibility changes failed']);
    expect(kernel.trace.lines.at(-1)).toMatch(
      /lambda-2 info: message retry delayed \(ledger-3\): 4 s, backoff$/,
    );
  });
});
