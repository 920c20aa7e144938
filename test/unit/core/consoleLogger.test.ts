import { afterEach, describe, expect, it, vi } from 'vitest';
import { createConsoleLogger } from '../../../src/index.js';

afterEach(() => vi.restoreAllMocks());

function loggedLine(log: () => void): Record<string, unknown> {
  const error = vi.spyOn(console, 'error').mockImplementation(() => {});
  log();
  return JSON.parse(String(error.mock.calls[0]?.[0]));
}

describe('createConsoleLogger', () => {
  it('logs circular objects, BigInts and objects without a prototype instead of throwing', () => {
    const response: Record<string, unknown> = { statusCode: 502 };
    response.self = response;

    const line = loggedLine(() =>
      createConsoleLogger('WARN').error('failed', {
        error: response,
        amount: 10n,
        bare: Object.assign(Object.create(null), { a: 1 }),
      }),
    );

    expect(line).toMatchObject({
      level: 'ERROR',
      message: 'failed',
      error: { statusCode: 502, self: '[Circular]' },
      amount: '10',
      bare: { a: 1 },
    });
  });

  it('keeps the line when a value cannot be serialized at all (a throwing getter)', () => {
    const hostile = {
      get secret() {
        throw new Error('no');
      },
    };

    const line = loggedLine(() => createConsoleLogger('WARN').warn('failed', { hostile }));

    expect(line).toMatchObject({ level: 'WARN', message: 'failed', extras: '[unserializable]' });
  });
});
