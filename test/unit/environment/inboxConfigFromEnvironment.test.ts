import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { InboxEnvironment } from '../../../src/constants/index.js';
import { EnvironmentError } from '../../../src/errors.js';
import { DynamoDBInboxStore, inboxConfigFromEnvironment } from '../../../src/index.js';

/** The environment the InboxConsumer construct sets, written out as the wire contract. */
const deployed = {
  INBOX_TABLE_NAME: 'inbox',
  INBOX_CONSUMER: 'ledger',
  INBOX_TTL_SECONDS: '1641600',
  INBOX_DEAD_LETTER_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/ledger-dlq.fifo',
  INBOX_MAX_RECEIVE_COUNT: '5',
  INBOX_SOURCES: 'sns,eventbridge',
  INBOX_BUSINESS_TABLE_accounts: 'Payments-Accounts-1',
  INBOX_BUSINESS_TABLE_ledgerEntries: 'Payments-Entries-2',
  UNRELATED: 'x',
};

describe('inboxConfigFromEnvironment', () => {
  it('builds the inbox options and the business tables from the construct’s variables', () => {
    const inbox = inboxConfigFromEnvironment({ env: deployed });

    expect(inbox.options).toMatchObject({
      consumer: 'ledger',
      ttlSeconds: 1_641_600,
      deadLetter: { queueUrl: deployed.INBOX_DEAD_LETTER_QUEUE_URL, maxReceiveCount: 5 },
      sources: ['sns', 'eventbridge'],
    });
    expect(inbox.options.key).toBeUndefined();
    expect(inbox.options.store).toBeInstanceOf(DynamoDBInboxStore);
    expect(inbox.options.store.tableName).toBe('inbox');
    expect(inbox.tables).toEqual({
      accounts: 'Payments-Accounts-1',
      ledgerEntries: 'Payments-Entries-2',
    });
    expect(inbox.table('ledgerEntries')).toBe('Payments-Entries-2');
  });

  it('reads process.env by default', () => {
    const saved = { ...process.env };
    Object.assign(process.env, deployed);
    try {
      expect(inboxConfigFromEnvironment().options.consumer).toBe('ledger');
    } finally {
      for (const name of Object.keys(deployed)) delete process.env[name];
      Object.assign(process.env, saved);
    }
  });

  it('names every missing variable at once, and how to set them', () => {
    const { INBOX_CONSUMER: _consumer, INBOX_TTL_SECONDS: _ttl, ...partial } = deployed;
    const attempt = () => inboxConfigFromEnvironment({ env: partial });

    expect(attempt).toThrow(EnvironmentError);
    expect(attempt).toThrow(
      /^Environment variables INBOX_CONSUMER, INBOX_TTL_SECONDS are not set\. Deploy the function with the InboxConsumer construct/,
    );
    try {
      attempt();
    } catch (error) {
      expect((error as EnvironmentError).variables).toEqual([
        'INBOX_CONSUMER',
        'INBOX_TTL_SECONDS',
      ]);
    }
  });

  it('reads bodies as is when INBOX_SOURCES is unset (a function deployed without sources)', () => {
    const { INBOX_SOURCES: _sources, ...withoutSources } = deployed;

    expect(inboxConfigFromEnvironment({ env: withoutSources }).options.sources).toEqual(['sqs']);
  });

  it('treats an empty variable as missing', () => {
    expect(() =>
      inboxConfigFromEnvironment({ env: { ...deployed, INBOX_TABLE_NAME: '' } }),
    ).toThrow(/INBOX_TABLE_NAME is not set/);
  });

  it.each([
    { name: 'INBOX_CONSUMER', value: 'led#ger', fix: /Set it to 1-128 characters/ },
    {
      name: 'INBOX_DEAD_LETTER_QUEUE_URL',
      value: 'ledger-dlq',
      fix: /SQS URL of the dead-letter queue/,
    },
    { name: 'INBOX_MAX_RECEIVE_COUNT', value: '0', fix: /maxReceiveCount, 1 to 1000/ },
    { name: 'INBOX_SOURCES', value: 'sns,kafka', fix: /comma-separated sources of sqs, sns, / },
    { name: 'INBOX_KEY', value: 'header:eventId', fix: /attribute:<name> .* or field:<path>/ },
  ])('refuses $name=$value at cold start, naming the variable', ({ name, value, fix }) => {
    const attempt = () => inboxConfigFromEnvironment({ env: { ...deployed, [name]: value } });

    expect(attempt).toThrow(EnvironmentError);
    expect(attempt).toThrow(new RegExp(`^Environment variable ${name} is "${value}"\\.`));
    expect(attempt).toThrow(fix);
  });

  it.each(['15d', '59', '3600.5', '6e1', ' 60', '0x3c'])(
    'refuses INBOX_TTL_SECONDS=%s, naming the range',
    (ttl) => {
      expect(() =>
        inboxConfigFromEnvironment({ env: { ...deployed, INBOX_TTL_SECONDS: ttl } }),
      ).toThrow(/INBOX_TTL_SECONDS is ".*"\. Set it to whole seconds from 60 to/);
    },
  );

  it.each([
    {
      key: 'attribute:eventId',
      record: { body: {}, attributes: { eventId: { stringValue: 'e-1' } } },
      expected: 'e-1',
    },
    {
      key: 'attribute:eventId',
      record: { body: {}, sns: { eventId: { type: 'String', value: 'e-2' } } },
      expected: 'e-2',
    },
    { key: 'field:order.id', record: { body: { order: { id: 'o-1' } } }, expected: 'o-1' },
    { key: 'field:amount', record: { body: { amount: 42 } }, expected: '42' },
    { key: 'field:id', record: { body: { id: 2 ** 53 - 1 } }, expected: '9007199254740991' },
  ])('builds the key function that INBOX_KEY=$key declares', ({ key, record, expected }) => {
    const inbox = inboxConfigFromEnvironment({ env: { ...deployed, INBOX_KEY: key } });
    const message = {
      body: record.body,
      messageAttributes: record.attributes ?? {},
      envelope: record.sns ? { kind: 'sns', messageAttributes: record.sns } : { kind: 'sns-raw' },
    };

    expect(inbox.options.key?.(message as never)).toBe(expected);
  });

  it('builds a key function that refuses a number JSON.parse has rounded', () => {
    const inbox = inboxConfigFromEnvironment({ env: { ...deployed, INBOX_KEY: 'field:id' } });
    const message = { body: { id: 2 ** 53 + 2 }, messageAttributes: {}, envelope: { kind: 'sqs' } };

    expect(() => inbox.options.key?.(message as never)).toThrow(
      /no string or safe integer at payload field id/,
    );
  });

  it('builds a key function that throws for a message without the declared key', () => {
    const inbox = inboxConfigFromEnvironment({ env: { ...deployed, INBOX_KEY: 'field:id' } });

    expect(() =>
      inbox.options.key?.({
        body: { id: { nested: true } },
        messageAttributes: {},
        envelope: { kind: 'sqs' },
      } as never),
    ).toThrow(/no string or safe integer at payload field id/);
  });

  it('names the tables the function has when asked for another', () => {
    const inbox = inboxConfigFromEnvironment({ env: deployed });

    expect(() => inbox.table('acounts')).toThrow(EnvironmentError);
    expect(() => inbox.table('acounts')).toThrow(
      'Environment variable INBOX_BUSINESS_TABLE_acounts is not set. Add "acounts" to the InboxConsumer\'s businessTables (the function has: accounts, ledgerEntries).',
    );
    expect(() => inbox.table('toString')).toThrow(EnvironmentError);
  });

  it('uses the clients it is given', () => {
    const dynamoDBClient = new DynamoDBClient({ region: 'eu-west-1' });
    const sqsClient = new SQSClient({ region: 'eu-west-1' });

    const inbox = inboxConfigFromEnvironment({ env: deployed, dynamoDBClient, sqsClient });

    expect((inbox.options.store as DynamoDBInboxStore).client.config).toBe(dynamoDBClient.config);
    expect(inbox.options.deadLetter.client).toBe(sqsClient);
  });

  it('uses the names of the exported contract', () => {
    expect(InboxEnvironment).toEqual({
      TableName: 'INBOX_TABLE_NAME',
      Consumer: 'INBOX_CONSUMER',
      TtlSeconds: 'INBOX_TTL_SECONDS',
      DeadLetterQueueUrl: 'INBOX_DEAD_LETTER_QUEUE_URL',
      BusinessTablePrefix: 'INBOX_BUSINESS_TABLE_',
      MaxReceiveCount: 'INBOX_MAX_RECEIVE_COUNT',
      Sources: 'INBOX_SOURCES',
      Key: 'INBOX_KEY',
      OutboxTableName: 'INBOX_OUTBOX_TABLE_NAME',
      OutboxRetentionSeconds: 'INBOX_OUTBOX_RETENTION_SECONDS',
      OutboxPipeDestination: 'INBOX_OUTBOX_PIPE_DESTINATION',
      DestinationPrefix: 'INBOX_DESTINATION_',
      RetryFirstDelaySeconds: 'INBOX_RETRY_FIRST_DELAY_SECONDS',
      RetryMaxDelaySeconds: 'INBOX_RETRY_MAX_DELAY_SECONDS',
      RetryLeaseHeldMarginSeconds: 'INBOX_RETRY_LEASE_HELD_MARGIN_SECONDS',
      RelayDeadLetterQueueUrl: 'INBOX_RELAY_DEAD_LETTER_QUEUE_URL',
    });
  });

  it('gives the store no outbox without INBOX_OUTBOX_TABLE_NAME, and refuses a retention out of range', () => {
    const base = {
      INBOX_TABLE_NAME: 'inbox',
      INBOX_CONSUMER: 'ledger',
      INBOX_TTL_SECONDS: '86400',
      INBOX_DEAD_LETTER_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/dlq',
      INBOX_MAX_RECEIVE_COUNT: '5',
    };
    expect(inboxConfigFromEnvironment({ env: base }).options.store.outbox).toBeUndefined();
    expect(() =>
      inboxConfigFromEnvironment({
        env: { ...base, INBOX_OUTBOX_TABLE_NAME: 'outbox', INBOX_OUTBOX_RETENTION_SECONDS: '60' },
      }),
    ).toThrow(/INBOX_OUTBOX_RETENTION_SECONDS/);
    const withRetention = (seconds: string) =>
      inboxConfigFromEnvironment({
        env: {
          ...base,
          INBOX_OUTBOX_TABLE_NAME: 'outbox',
          INBOX_OUTBOX_RETENTION_SECONDS: seconds,
        },
      });
    expect(withRetention('172800').options.store.outbox?.retentionSeconds).toBe(172_800);
    expect(() => withRetention('172799')).toThrow(/from 172800 to 31622400/);
  });

  it("gives the store the pipe's queue from INBOX_OUTBOX_PIPE_DESTINATION, and refuses one that is no SQS queue", () => {
    const base = {
      INBOX_TABLE_NAME: 'inbox',
      INBOX_CONSUMER: 'ledger',
      INBOX_TTL_SECONDS: '86400',
      INBOX_DEAD_LETTER_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/dlq',
      INBOX_MAX_RECEIVE_COUNT: '5',
      INBOX_OUTBOX_TABLE_NAME: 'outbox',
      INBOX_OUTBOX_RETENTION_SECONDS: '172800',
    };
    const queue = 'https://sqs.eu-west-1.amazonaws.com/123456789012/credits.fifo';
    const env = { ...base, INBOX_OUTBOX_PIPE_DESTINATION: queue };

    expect(inboxConfigFromEnvironment({ env }).options.store.outbox).toEqual({
      tableName: 'outbox',
      retentionSeconds: 172_800,
      pipeDestination: queue,
    });
    expect(() =>
      inboxConfigFromEnvironment({
        env: { ...base, INBOX_OUTBOX_PIPE_DESTINATION: 'arn:aws:sns:eu-west-1:123456789012:t' },
      }),
    ).toThrow(/outbox.pipeDestination/);
  });
});
