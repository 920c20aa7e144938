import { Duration } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { consumerTemplate } from './stackFactory.js';

describe('InboxConsumer validation at synth time', () => {
  it.each([
    {
      when: 'the visibility timeout is under 6× the function timeout',
      props: { functionTimeout: Duration.seconds(30), visibilityTimeout: Duration.seconds(120) },
      message: /visibilityTimeout must be at least 6 × functionTimeout = 180 s \(given 120 s\)/,
    },
    {
      when: 'a FIFO batch is larger than 10',
      props: { fifo: true, batchSize: 11 },
      message: /batchSize must be an integer from 1 to 10 for a FIFO queue \(given 11\)/,
    },
    {
      when: 'the DLQ keeps messages no longer than the source queue',
      props: { retentionPeriod: Duration.days(7), deadLetterRetentionPeriod: Duration.days(7) },
      message:
        /deadLetterRetentionPeriod \(604800 s\) must be longer than retentionPeriod \(604800 s\)/,
    },
    {
      when: 'the inbox TTL is shorter than the redelivery horizon',
      props: { retentionPeriod: Duration.days(10), inboxTtl: Duration.days(3) },
      message: /inboxTtl \(259200 s\) must be at least retentionPeriod/,
    },
    {
      when: 'maxReceiveCount is below 2',
      props: { maxReceiveCount: 1 },
      message: /maxReceiveCount must be an integer from 2 to 1000 \(given 1\)/,
    },
    {
      when: 'a standard batch above 10 has no batching window',
      props: { batchSize: 50 },
      message: /batchSize above 10 \(given 50\) needs a maxBatchingWindow/,
    },
    {
      when: 'content-based deduplication is asked of a standard queue',
      props: { contentBasedDeduplication: true },
      message: /contentBasedDeduplication is only for FIFO queues/,
    },
    {
      when: 'a FIFO queue is given a batching window',
      props: { fifo: true, maxBatchingWindow: Duration.seconds(5) },
      message: /maxBatchingWindow is not supported for FIFO queues/,
    },
    {
      when: 'maxConcurrency is out of range',
      props: { maxConcurrency: 1 },
      message: /maxConcurrency must be an integer from 2 to 1000 \(given 1\)/,
    },
    {
      when: 'the consumer name has a #',
      props: { consumerName: 'orders#eu' },
      message: /consumerName must match/,
    },
  ])('fails when $when, naming the value and the fix', ({ props, message }) => {
    expect(() => consumerTemplate(props)).toThrow(message);
  });

  it('accepts a standard batch above 10 with a batching window', () => {
    expect(() =>
      consumerTemplate({ batchSize: 100, maxBatchingWindow: Duration.seconds(5) }),
    ).not.toThrow();
  });
});
