import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { resolveRetry } from '../../../src/core/resolveRetry.js';
import { InvalidConfigurationError } from '../../../src/errors.js';

const resolve = (retry: unknown, deadLetter?: unknown) =>
  resolveRetry({ consumer: 'ledger', retry, deadLetter } as never).retry;

describe('resolveRetry', () => {
  it('is off when the group is absent, so no visibility is ever changed', () => {
    expect(resolve(undefined)).toBeUndefined();
  });

  it('re-times lease-held copies only for an empty group, with a 2-second margin', () => {
    expect(resolve({})).toEqual({
      backoff: undefined,
      leaseHeldMarginSeconds: 2,
      client: undefined,
    });
  });

  it('keeps a valid backoff and margin, and uses the dead-letter client unless given its own', () => {
    const deadLetterClient = new SQSClient({});
    const own = new SQSClient({});
    const backoff = { firstDelaySeconds: 5, maxDelaySeconds: 900 };
    expect(resolve({ backoff, leaseHeldMarginSeconds: 0 }, { client: deadLetterClient })).toEqual({
      backoff,
      leaseHeldMarginSeconds: 0,
      client: deadLetterClient,
    });
    expect(resolve({ client: own }, { client: deadLetterClient })?.client).toBe(own);
  });

  it.each([
    ['retry', 5],
    ['retry.backof', { firstDelaySeconds: 5 }],
    ['retry.backoff', 'fast'],
    ['retry.backoff.firstDelaySeconds', { maxDelaySeconds: 900 }],
    ['retry.backoff.firstDelaySeconds', { firstDelaySeconds: 0, maxDelaySeconds: 900 }],
    ['retry.backoff.firstDelaySeconds', { firstDelaySeconds: 1.5, maxDelaySeconds: 900 }],
    ['retry.backoff.maxDelaySeconds', { firstDelaySeconds: 5 }],
    ['retry.backoff.maxDelaySeconds', { firstDelaySeconds: 60, maxDelaySeconds: 30 }],
    ['retry.backoff.maxDelaySeconds', { firstDelaySeconds: 5, maxDelaySeconds: 42_001 }],
  ])('refuses %s when given %j', (option, value) => {
    const retry =
      option === 'retry'
        ? value
        : option === 'retry.backof'
          ? { backof: value }
          : {
              backoff: value,
            };
    expect(() => resolve(retry)).toThrow(
      expect.objectContaining({ name: InvalidConfigurationError.errorName, option }),
    );
  });

  it('refuses a margin outside 0 to 900 seconds and a client without send', () => {
    expect(() => resolve({ leaseHeldMarginSeconds: 901 })).toThrow(
      expect.objectContaining({ option: 'retry.leaseHeldMarginSeconds' }),
    );
    expect(() => resolve({ leaseHeldMarginSeconds: -1 })).toThrow(
      expect.objectContaining({ option: 'retry.leaseHeldMarginSeconds' }),
    );
    expect(() => resolve({ client: {} })).toThrow(
      expect.objectContaining({ option: 'retry.client' }),
    );
  });

  it('accepts the 42,000-second cap, the largest that stays within SQS’s 12 hours', () => {
    const backoff = { firstDelaySeconds: 1, maxDelaySeconds: 42_000 };
    expect(resolve({ backoff })?.backoff).toEqual(backoff);
  });
});
