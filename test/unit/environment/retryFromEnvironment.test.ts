import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { InboxEnvironment } from '../../../src/constants/index.js';
import { EnvironmentError } from '../../../src/errors.js';
import { inboxConfigFromEnvironment } from '../../../src/index.js';

/** The variables the InboxConsumer construct sets without retry, as the wire contract. */
const deployed = {
  INBOX_TABLE_NAME: 'inbox',
  INBOX_CONSUMER: 'ledger',
  INBOX_TTL_SECONDS: '1641600',
  INBOX_DEAD_LETTER_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/ledger-dlq',
  INBOX_MAX_RECEIVE_COUNT: '5',
};
const retryOf = (env: Record<string, string>, sqsClient?: SQSClient) =>
  inboxConfigFromEnvironment({ env: { ...deployed, ...env }, ...(sqsClient ? { sqsClient } : {}) })
    .options.retry;

describe('inboxConfigFromEnvironment, the retry variables', () => {
  it('names the variables of the contract', () => {
    expect([
      InboxEnvironment.RetryFirstDelaySeconds,
      InboxEnvironment.RetryMaxDelaySeconds,
      InboxEnvironment.RetryLeaseHeldMarginSeconds,
    ]).toEqual([
      'INBOX_RETRY_FIRST_DELAY_SECONDS',
      'INBOX_RETRY_MAX_DELAY_SECONDS',
      'INBOX_RETRY_LEASE_HELD_MARGIN_SECONDS',
    ]);
  });

  it('leaves retry unset when no INBOX_RETRY_ variable is set', () => {
    expect(retryOf({})).toBeUndefined();
    expect('retry' in inboxConfigFromEnvironment({ env: deployed }).options).toBe(false);
  });

  it('sets the backoff, the margin and the SQS client from the variables', () => {
    const sqsClient = new SQSClient({});
    expect(
      retryOf(
        {
          INBOX_RETRY_FIRST_DELAY_SECONDS: '5',
          INBOX_RETRY_MAX_DELAY_SECONDS: '900',
          INBOX_RETRY_LEASE_HELD_MARGIN_SECONDS: '3',
        },
        sqsClient,
      ),
    ).toEqual({
      backoff: { firstDelaySeconds: 5, maxDelaySeconds: 900 },
      leaseHeldMarginSeconds: 3,
      client: sqsClient,
    });
  });

  it('sets retry without backoff from the margin alone: lease-held copies are re-timed', () => {
    expect(retryOf({ INBOX_RETRY_LEASE_HELD_MARGIN_SECONDS: '2' })).toEqual({
      leaseHeldMarginSeconds: 2,
    });
  });

  it.each([
    [{ INBOX_RETRY_FIRST_DELAY_SECONDS: '5' }, 'INBOX_RETRY_MAX_DELAY_SECONDS', /is not set/],
    [{ INBOX_RETRY_MAX_DELAY_SECONDS: '60' }, 'INBOX_RETRY_FIRST_DELAY_SECONDS', /is not set/],
    [
      { INBOX_RETRY_FIRST_DELAY_SECONDS: '0', INBOX_RETRY_MAX_DELAY_SECONDS: '60' },
      'INBOX_RETRY_FIRST_DELAY_SECONDS',
      /is "0"/,
    ],
    [
      { INBOX_RETRY_FIRST_DELAY_SECONDS: '60', INBOX_RETRY_MAX_DELAY_SECONDS: '30' },
      'INBOX_RETRY_MAX_DELAY_SECONDS',
      /from 60 to 42000/,
    ],
    [
      { INBOX_RETRY_FIRST_DELAY_SECONDS: '5', INBOX_RETRY_MAX_DELAY_SECONDS: '42001' },
      'INBOX_RETRY_MAX_DELAY_SECONDS',
      /is "42001"/,
    ],
    [
      { INBOX_RETRY_LEASE_HELD_MARGIN_SECONDS: '1.5' },
      'INBOX_RETRY_LEASE_HELD_MARGIN_SECONDS',
      /is "1.5"/,
    ],
    [
      { INBOX_RETRY_LEASE_HELD_MARGIN_SECONDS: '2s' },
      'INBOX_RETRY_LEASE_HELD_MARGIN_SECONDS',
      /is "2s"/,
    ],
  ])('refuses %j, naming %s', (env, variable, problem) => {
    const attempt = () => retryOf(env);
    expect(attempt).toThrow(EnvironmentError);
    expect(attempt).toThrow(problem);
    expect(attempt).toThrow(expect.objectContaining({ variables: [variable] }));
  });
});
