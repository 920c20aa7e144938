import { describe, expect, it } from 'vitest';
import { stepIdempotencyKey } from '../../../src/constants/index.js';

describe('stepIdempotencyKey', () => {
  it('is 64 hex characters that depend on consumer, key and step name only', () => {
    const key = stepIdempotencyKey('notifier', 'evt-1', 'email');
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(stepIdempotencyKey('notifier', 'evt-1', 'email')).toBe(key);
    expect(stepIdempotencyKey('ledger', 'evt-1', 'email')).not.toBe(key);
    expect(stepIdempotencyKey('notifier', 'evt-2', 'email')).not.toBe(key);
    expect(stepIdempotencyKey('notifier', 'evt-1', 'charge')).not.toBe(key);
  });

  it('keeps apart keys and step names that would join into the same text', () => {
    expect(stepIdempotencyKey('c', 'a', 'b.c')).not.toBe(stepIdempotencyKey('c', 'a\u0000b', 'c'));
    expect(stepIdempotencyKey('c', 'ab', 'c')).not.toBe(stepIdempotencyKey('c', 'a', 'bc'));
  });
});
