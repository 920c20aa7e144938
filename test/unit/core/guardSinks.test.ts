import { afterEach, describe, expect, it, vi } from 'vitest';
import { guardLogger, guardMetrics } from '../../../src/core/guardSinks.js';

afterEach(() => vi.restoreAllMocks());

describe('guarded logger and metrics', () => {
  it('swallow the rejections of async sinks, reporting them on stderr instead of leaving them unhandled', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    const rejecting = async () => {
      throw new Error('transport down');
    };

    guardLogger({ debug: rejecting, info: rejecting, warn: rejecting, error: rejecting }).error(
      'x',
    );
    guardMetrics({ addMetric: rejecting }).addMetric('InboxProcessed', 'Count', 1);
    await new Promise((resolve) => setImmediate(resolve));
    process.off('unhandledRejection', unhandled);

    expect(unhandled).not.toHaveBeenCalled();
    const reported = stderr.mock.calls.map(([line]) => String(line)).join('');
    expect(reported).toContain('the logger threw while logging');
    expect(reported).toContain('the metrics sink threw on InboxProcessed');
  });
});
