/**
 * The stored formats, pinned: each inbox entry and outbox item exactly as DynamoDB holds it
 * after the store's write (wire types included: a number stored as a string is another format).
 * The store writes through the simulation's DynamoDB, which the conformance suite holds to
 * DynamoDB Local, so an update's result is pinned as well as a Put's.
 *
 * A change here needs a format version bump, unless it only adds an attribute that older
 * readers may ignore (the rule in `FORMAT_VERSIONS`' TSDoc): then update the snapshot and say
 * so in the commit. A bump raises `FORMAT_VERSIONS`, keeps these snapshots as the previous
 * version's (every version is read until none can be stored any more) and adds the new one's.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoDBInboxStore } from '../../../src/aws/DynamoDBInboxStore.js';
import { FORMAT_VERSIONS, outboxMessageId } from '../../../src/constants/index.js';
import type { CommitRequest, LeaseToken } from '../../../src/core/InboxStore.js';
import { buildEntry } from '../../../src/core/inboxEntry.js';
import type { OutgoingMessage } from '../../../src/outbox/OutgoingMessage.js';
import { groupItemPk } from '../../../src/outbox/planOutboxItems.js';
import { SimDocumentClient } from '../../../src/testing/dynamo/SimDocumentClient.js';
import { SimDynamoDB } from '../../../src/testing/dynamo/SimDynamoDB.js';

const NOW_MILLIS = Date.UTC(2026, 10, 24, 10, 0, 0);
const NOW_SECONDS = NOW_MILLIS / 1000;
const DAY = 86_400;
const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/audit';
const FIFO_QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/credits.fifo';
const BUS = 'arn:aws:events:eu-west-1:123456789012:event-bus/payments';

function world() {
  const dynamo = new SimDynamoDB();
  for (const [TableName, key] of [
    ['inbox', 'pk'],
    ['outbox', 'pk'],
    ['accounts', 'accountId'],
  ] as const) {
    dynamo.createTable({
      TableName,
      KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: key, AttributeType: 'S' }],
    });
  }
  const client = new SimDocumentClient({ dynamo }).documentClient;
  const store = new DynamoDBInboxStore({
    tableName: 'inbox',
    client,
    outbox: { tableName: 'outbox', retentionSeconds: 7 * DAY },
  });
  const stored = (TableName: string, pk: string): string => {
    const item = dynamo.getItem({ TableName, Key: { pk: { S: pk } } }).Item ?? {};
    return Object.keys(item)
      .sort()
      .flatMap((name) => attributeLines(name, item[name] as AttributeValue))
      .join('\n');
  };
  return { store, stored };
}

/** An attribute as it is stored, one line per scalar: its path, its wire type and its value. */
function attributeLines(path: string, value: AttributeValue): string[] {
  const [type, inner] = Object.entries(value)[0] as [string, unknown];
  if (type === 'M') {
    const members = Object.entries(inner as Record<string, AttributeValue>).sort();
    if (members.length === 0) return [`${path} M {}`];
    return members.flatMap(([name, member]) => attributeLines(`${path}.${name}`, member));
  }
  if (type === 'L') {
    const elements = inner as AttributeValue[];
    if (elements.length === 0) return [`${path} L []`];
    return elements.flatMap((element, index) => attributeLines(`${path}[${index}]`, element));
  }
  return [`${path} ${type} ${String(inner)}`];
}

const entry = buildEntry({
  consumer: 'ledger',
  key: 'evt-1',
  messageId: 'm-1',
  payloadHash: 'a'.repeat(64),
  nowMillis: NOW_MILLIS,
  ttlSeconds: 23 * DAY,
});

function commitOf(overrides: Partial<CommitRequest> = {}): CommitRequest {
  return {
    entry,
    operations: [
      {
        Update: {
          TableName: 'accounts',
          Key: { accountId: 'acc-1' },
          UpdateExpression: 'ADD balanceCents :amount',
          ExpressionAttributeValues: { ':amount': 1250 },
        },
      },
    ],
    nowEpochSeconds: NOW_SECONDS,
    nowMillis: NOW_MILLIS,
    ...overrides,
  };
}

/** Claims the entry for an attempt with steps, as `MessageSteps` does. */
async function claimed(store: DynamoDBInboxStore, owner: string, nowMillis: number) {
  const result = await store.claim({
    entry: { ...entry, expiresAt: NOW_SECONDS + 23 * DAY },
    payloadHashes: [entry.payloadHash],
    owner,
    nowMillis,
    leaseUntilMillis: nowMillis + 65_000,
  });
  if (!result.claimed) throw new Error('the claim was refused');
  return result.lease;
}

describe('stored formats: a change here needs a format version bump', () => {
  it('writes format version 1 of inbox entries and outbox items', () => {
    expect(FORMAT_VERSIONS).toEqual({ inboxEntry: 1, outboxItem: 1 });
  });

  it('stores the inbox entry of a step-less commit, written with the business write', async () => {
    const { store, stored } = world();
    await expect(store.commit(commitOf())).resolves.toEqual({ committed: true });

    expect(stored('inbox', 'ledger#evt-1')).toMatchInlineSnapshot(`
      "consumer S ledger
      expiresAt N 1797501600
      formatVersion N 1
      key S evt-1
      messageId S m-1
      payloadHash S aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
      pk S ledger#evt-1
      processedAt S 2026-11-24T10:00:00.000Z
      status S COMPLETED"
    `);
  });

  it('stores the inbox entry an attempt with steps claims, under its lease', async () => {
    const { store, stored } = world();
    await claimed(store, 'owner-1', NOW_MILLIS);

    expect(stored('inbox', 'ledger#evt-1')).toMatchInlineSnapshot(`
      "attempts N 1
      consumer S ledger
      expiresAt N 1797501600
      formatVersion N 1
      key S evt-1
      leaseClaimedFrom S owner-1
      leaseEpoch N 1
      leaseOwner S owner-1
      leaseUntil N 1795514465000
      messageId S m-1
      payloadHash S aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
      pk S ledger#evt-1
      status S IN_PROGRESS
      steps M {}"
    `);
  });

  it('stores a journaled step in the entry, its result as JSON text', async () => {
    const { store, stored } = world();
    const lease = await claimed(store, 'owner-1', NOW_MILLIS);
    await store.journal({
      pk: entry.pk,
      lease,
      stepName: 'charge',
      step: { result: '{"chargeId":"ch-1"}', at: '2026-11-24T10:00:01.000Z' },
    });

    expect(stored('inbox', 'ledger#evt-1')).toMatchInlineSnapshot(`
      "attempts N 1
      consumer S ledger
      expiresAt N 1797501600
      formatVersion N 1
      key S evt-1
      leaseClaimedFrom S owner-1
      leaseEpoch N 1
      leaseOwner S owner-1
      leaseUntil N 1795514465000
      messageId S m-1
      payloadHash S aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
      pk S ledger#evt-1
      status S IN_PROGRESS
      steps.charge.at S 2026-11-24T10:00:01.000Z
      steps.charge.result S {"chargeId":"ch-1"}"
    `);
  });

  it('stores a released entry with its last error and a result in hand journaled, its lease removed', async () => {
    const { store, stored } = world();
    const lease = await claimed(store, 'owner-1', NOW_MILLIS);
    await store.release({
      pk: entry.pk,
      lease,
      lastError: { name: 'DestinationUnavailableError', at: '2026-11-24T10:00:02.000Z' },
      journal: { email: { result: '"sent"', at: '2026-11-24T10:00:01.500Z' } },
    });

    expect(stored('inbox', 'ledger#evt-1')).toMatchInlineSnapshot(`
      "attempts N 1
      consumer S ledger
      expiresAt N 1797501600
      formatVersion N 1
      key S evt-1
      lastError.at S 2026-11-24T10:00:02.000Z
      lastError.name S DestinationUnavailableError
      leaseClaimedFrom S owner-1
      leaseEpoch N 1
      messageId S m-1
      payloadHash S aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
      pk S ledger#evt-1
      status S FAILED
      steps.email.at S 2026-11-24T10:00:01.500Z
      steps.email.result S "sent""
    `);
  });

  it("stores a step-less attempt's failure record, its second failure counted, no journal or lease", async () => {
    const { store, stored } = world();
    const failure = (messageId: string, at: string) =>
      store.recordFailure({
        entry: { ...entry, messageId },
        payloadHashes: [entry.payloadHash],
        lastError: { name: 'TransientStoreError', at },
        nowMillis: NOW_MILLIS,
      });
    await expect(failure('m-1', '2026-11-24T10:00:00.000Z')).resolves.toEqual({ recorded: true });
    await expect(failure('m-2', '2026-11-24T10:00:30.000Z')).resolves.toEqual({ recorded: true });

    expect(stored('inbox', 'ledger#evt-1')).toMatchInlineSnapshot(`
      "attempts N 2
      consumer S ledger
      expiresAt N 1797501600
      formatVersion N 1
      key S evt-1
      lastError.at S 2026-11-24T10:00:30.000Z
      lastError.name S TransientStoreError
      messageId S m-2
      payloadHash S aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
      pk S ledger#evt-1
      status S FAILED"
    `);
  });

  it('stores the entry an attempt with steps commits after resuming a released one', async () => {
    const { store, stored } = world();
    const first = await claimed(store, 'owner-1', NOW_MILLIS);
    await store.release({ pk: entry.pk, lease: first, lastError: { name: 'Error', at: 'then' } });
    const lease: LeaseToken = await claimed(store, 'owner-2', NOW_MILLIS + 60_000);
    await store.commit(commitOf({ lease }));

    expect(stored('inbox', 'ledger#evt-1')).toMatchInlineSnapshot(`
      "attempts N 2
      consumer S ledger
      expiresAt N 1797501600
      formatVersion N 1
      key S evt-1
      lastError.at S then
      lastError.name S Error
      leaseClaimedFrom S owner-2
      leaseEpoch N 2
      messageId S m-1
      payloadHash S aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
      pk S ledger#evt-1
      processedAt S 2026-11-24T10:00:00.000Z
      status S COMPLETED
      steps M {}"
    `);
  });

  it("stores an outbox item per message without a group, and a group's item, written in the commit", async () => {
    const { store, stored } = world();
    const message = (index: number, fields: Omit<OutgoingMessage, 'id'>): OutgoingMessage => ({
      id: outboxMessageId('ledger', 'evt-1', { index }),
      ...fields,
    });
    const outgoing = [
      message(0, { destination: QUEUE, kind: 'sqs', body: 'audit', attributes: { a: 'b' } }),
      message(1, { destination: FIFO_QUEUE, kind: 'sqs-fifo', body: '{"n":1}', groupId: 'acc-1' }),
      message(2, { destination: FIFO_QUEUE, kind: 'sqs-fifo', body: '{"n":2}', groupId: 'acc-1' }),
      message(3, {
        destination: BUS,
        kind: 'eventbridge',
        body: '{"paymentId":"p-1"}',
        source: 'ledger',
        detailType: 'PaymentCredited',
      }),
    ];
    await store.commit(commitOf({ outgoing }));

    expect(stored('outbox', `msg#${outgoing[0]?.id}`)).toMatchInlineSnapshot(`
      "committedAt S 2026-11-24T10:00:00.000Z
      expiresAt N 1796119200
      formatVersion N 1
      messages[0].attributes.a S b
      messages[0].body S audit
      messages[0].destination S https://sqs.eu-west-1.amazonaws.com/123456789012/audit
      messages[0].id S 1503e46a602042d41663c508eddb5c24f2c6196afe20e8f3d4ea2c4a23bd9c73
      messages[0].kind S sqs
      origin.consumer S ledger
      origin.keyHash S 7b409f932d2c88e9
      pk S msg#1503e46a602042d41663c508eddb5c24f2c6196afe20e8f3d4ea2c4a23bd9c73"
    `);
    expect(stored('outbox', `msg#${outgoing[3]?.id}`)).toMatchInlineSnapshot(`
      "committedAt S 2026-11-24T10:00:00.000Z
      expiresAt N 1796119200
      formatVersion N 1
      messages[0].body S {"paymentId":"p-1"}
      messages[0].destination S arn:aws:events:eu-west-1:123456789012:event-bus/payments
      messages[0].detailType S PaymentCredited
      messages[0].id S b2d58ae36fc29ee4c82560a2c5806533b92bcb4ecd83869030e6b9d4f7683845
      messages[0].kind S eventbridge
      messages[0].source S ledger
      origin.consumer S ledger
      origin.keyHash S 7b409f932d2c88e9
      pk S msg#b2d58ae36fc29ee4c82560a2c5806533b92bcb4ecd83869030e6b9d4f7683845"
    `);
    expect(stored('outbox', groupItemPk(FIFO_QUEUE, 'acc-1'))).toMatchInlineSnapshot(`
      "committedAt S 2026-11-24T10:00:00.000Z
      destination S https://sqs.eu-west-1.amazonaws.com/123456789012/credits.fifo
      expiresAt N 1796119200
      formatVersion N 1
      groupId S acc-1
      messages[0].body S {"n":1}
      messages[0].destination S https://sqs.eu-west-1.amazonaws.com/123456789012/credits.fifo
      messages[0].groupId S acc-1
      messages[0].id S 8da9adb96071d84e35e41e3f4a08e8916b7558a27e6a5923bb34cac86e4427c0
      messages[0].kind S sqs-fifo
      messages[1].body S {"n":2}
      messages[1].destination S https://sqs.eu-west-1.amazonaws.com/123456789012/credits.fifo
      messages[1].groupId S acc-1
      messages[1].id S a287bca5e3dfba9cf56eaa2f1cadbe198485c7f28ff6e767664d86f634ce1c57
      messages[1].kind S sqs-fifo
      origin.consumer S ledger
      origin.keyHash S 7b409f932d2c88e9
      pk S grp#ad72b65ca67f6f3d50af5b0cbd13187313519f950eefad5af90930fa831f15d7
      seq N 1"
    `);
  });
  it("stores the record span's traceparent on its outbox items, an attribute older relays ignore (no version bump), and a later untraced commit removes it from a group's item", async () => {
    const { store, stored } = world();
    const traceparent = '00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01';
    const single: OutgoingMessage = {
      id: outboxMessageId('ledger', 'evt-1', { index: 0 }),
      destination: QUEUE,
      kind: 'sqs',
      body: 'audit',
    };
    const grouped = (index: number, key: string): OutgoingMessage => ({
      id: outboxMessageId('ledger', key, { index }),
      destination: FIFO_QUEUE,
      kind: 'sqs-fifo',
      body: '{}',
      groupId: 'acc-1',
    });
    await store.commit(commitOf({ outgoing: [single, grouped(1, 'evt-1')], traceparent }));

    expect(stored('outbox', `msg#${single.id}`)).toMatchInlineSnapshot(`
      "committedAt S 2026-11-24T10:00:00.000Z
      expiresAt N 1796119200
      formatVersion N 1
      messages[0].body S audit
      messages[0].destination S https://sqs.eu-west-1.amazonaws.com/123456789012/audit
      messages[0].id S 1503e46a602042d41663c508eddb5c24f2c6196afe20e8f3d4ea2c4a23bd9c73
      messages[0].kind S sqs
      origin.consumer S ledger
      origin.keyHash S 7b409f932d2c88e9
      pk S msg#1503e46a602042d41663c508eddb5c24f2c6196afe20e8f3d4ea2c4a23bd9c73
      traceparent S 00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01"
    `);
    expect(stored('outbox', groupItemPk(FIFO_QUEUE, 'acc-1'))).toContain(
      `traceparent S ${traceparent}`,
    );

    const later = { ...entry, pk: 'ledger#evt-2', key: 'evt-2', messageId: 'm-2' };
    await store.commit({ ...commitOf({ outgoing: [grouped(0, 'evt-2')] }), entry: later });

    expect(stored('outbox', groupItemPk(FIFO_QUEUE, 'acc-1'))).not.toContain('traceparent');
  });
});
