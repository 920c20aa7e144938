/**
 * `InboxTest.environment` against the construct: the `INBOX_RETRY_*` variables the kit writes
 * for its `retry` option are those `InboxConsumer` writes for the same `retry` prop
 * (src/cdk/resolveConsumerRetry.ts), and the library reads them back as the kit's `options`.
 */
import { Duration } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import type { InboxRetryProps } from '../../../../src/cdk/InboxRetryProps.js';
import {
  resolveConsumerRetry,
  retryEnvironment,
} from '../../../../src/cdk/resolveConsumerRetry.js';
import { InboxTest, type InboxTestOptions } from '../../../../src/testing/index.js';

const BOUNDS = {
  retentionPeriod: Duration.days(14),
  visibilityTimeout: Duration.seconds(30),
  maxReceiveCount: 5,
};
const fail = (message: string): never => {
  throw new Error(message);
};

const retryVariables = (environment: Readonly<Record<string, string>>) =>
  Object.fromEntries(
    Object.entries(environment).filter(([name]) => name.startsWith('INBOX_RETRY_')),
  );

describe('InboxTest.environment', () => {
  it.each<{
    name: string;
    kit: InboxTestOptions['retry'];
    construct: InboxRetryProps | false | undefined;
  }>([
    { name: 'the default', kit: undefined, construct: undefined },
    {
      name: 'a backoff and a margin',
      kit: { backoff: { firstDelaySeconds: 5, maxDelaySeconds: 900 }, leaseHeldMarginSeconds: 7 },
      construct: {
        backoff: { firstDelay: Duration.seconds(5), maxDelay: Duration.minutes(15) },
        leaseHeldMargin: Duration.seconds(7),
      },
    },
    { name: 'false', kit: false, construct: false },
  ])('writes the retry variables the construct writes for $name', ({ kit, construct }) => {
    const inbox = new InboxTest(kit === undefined ? {} : { retry: kit });

    const written = retryEnvironment(resolveConsumerRetry(construct, BOUNDS, fail));
    expect(retryVariables(inbox.environment)).toEqual(written);
    const { retry } = inbox.inboxConfig().options;
    const { client: _fromEnvironment, ...read } = retry ?? {};
    const { client: _fromOptions, ...given } = inbox.options.retry ?? {};
    expect(read).toEqual(given);
  });

  it('writes the construct’s default lease-held margin, 2 s, when no retry is given', () => {
    expect(new InboxTest().environment).toMatchObject({
      INBOX_RETRY_LEASE_HELD_MARGIN_SECONDS: '2',
    });
  });
});
