import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { outboxMessageId } from '../../../src/constants/index.js';
import {
  DestinationRefusedError,
  DestinationUnavailableError,
  MalformedEventError,
  OutboxRecordError,
  RecordDeadlineError,
} from '../../../src/errors.js';
import type { OutboxDeadLetter } from '../../../src/outbox/OutboxDeadLetter.js';
import type { OutgoingMessage } from '../../../src/outbox/OutgoingMessage.js';
import { createOutboxRelay } from '../../../src/relay/createOutboxRelay.js';
import { recordingLogger } from '../../support/sqsRecords.js';

const QUEUE = 'http://localhost:4566/000000000000/credits';
const DLQ = 'http://localhost:4566/000000000000/relay-dlq';
let sequence = 0;

function message(name: string, destination = QUEUE): OutgoingMessage {
  const id = outboxMessageId('ledger', 'k', { name });
  return { id, destination, kind: 'sqs', body: name };
}

function record(pk: string, messages: OutgoingMessage[], eventName = 'INSERT'): DynamoDBRecord {
  sequence += 1;
  return {
    eventID: `e${sequence}`,
    eventName: eventName as 'INSERT',
    dynamodb: {
      Keys: marshall({ pk }) as never,
      NewImage: marshall({ pk, messages }, { removeUndefinedValues: true }) as never,
      SequenceNumber: String(sequence).padStart(21, '0'),
    },
  };
}

/** A sender that records what it sends and fails as told (a stand-in: unit level, no AWS). */
function fakeSender(fail: (message: OutgoingMessage) => Error | undefined = () => undefined) {
  const sent: string[] = [];
  return {
    sent,
    send: async (m: OutgoingMessage) => {
      const error = fail(m);
      if (error) throw error;
      sent.push(m.body);
    },
  };
}

function relayWith(
  sender: ReturnType<typeof fakeSender>,
  letters: OutboxDeadLetter[] = [],
  failLetters = false,
) {
  return createOutboxRelay({
    sender,
    deadLetter: {
      queueUrl: DLQ,
      sink: {
        send: async (letter) => {
          if (failLetters) throw new Error('the queue is gone');
          letters.push(letter);
        },
      },
    },
    observability: { logger: recordingLogger() },
    runtime: { now: () => Date.parse('2026-11-24T12:00:00Z') },
  });
}

describe('createOutboxRelay', () => {
  it('sends the messages of inserted and modified items in order and passes over removals', async () => {
    const sender = fakeSender();
    const removed = { ...record('msg#x', [message('never')], 'REMOVE') };
    const ttl = {
      ...record('msg#y', [message('never')]),
      eventName: 'UNKNOWN_TO_SDK_VERSION',
    } as unknown as DynamoDBRecord;
    const event = {
      Records: [
        record('grp#a', [message('a1'), message('a2')]),
        removed,
        ttl,
        record('grp#a', [message('a3')], 'MODIFY'),
      ],
    };
    const outcomes = await relayWith(sender).relayRecords(event);

    expect(sender.sent).toEqual(['a1', 'a2', 'a3']);
    expect(outcomes.map(({ status }) => status)).toEqual([
      'relayed',
      'skipped',
      'skipped',
      'relayed',
    ]);
  });

  it("fails a record whose message cannot be sent now, holds back that item's later records, and relays the other items", async () => {
    const sender = fakeSender((m) =>
      m.body === 'a2' ? new DestinationUnavailableError(QUEUE, 'ThrottlingException') : undefined,
    );
    const failing = record('grp#a', [message('a1'), message('a2')]);
    const event = {
      Records: [
        failing,
        record('grp#b', [message('b1')]),
        record('grp#a', [message('a3')]),
        record('grp#b', [message('b2')]),
      ],
    };
    const response = await relayWith(sender).process(event);

    expect(sender.sent).toEqual(['a1', 'b1', 'b2']);
    expect(response.batchItemFailures).toEqual([
      { itemIdentifier: failing.dynamodb?.SequenceNumber },
    ]);
  });

  it('dead-letters a refused message in full with its reason, and sends the next ones', async () => {
    const refused = message('to-nowhere');
    const sender = fakeSender((m) =>
      m === refused || m.id === refused.id
        ? new DestinationRefusedError(QUEUE, m.id, 'QueueDoesNotExist')
        : undefined,
    );
    const letters: OutboxDeadLetter[] = [];
    const refusedRecord = record('grp#a', [refused, message('after')]);
    const response = await relayWith(sender, letters).process({ Records: [refusedRecord] });

    expect(response.batchItemFailures).toEqual([]);
    expect(sender.sent).toEqual(['after']);
    expect(letters).toEqual([
      {
        kind: 'sqs-inbox.outbox.dead-letter',
        reason: {
          error: 'DestinationRefusedError',
          code: 'QueueDoesNotExist',
          message: expect.stringContaining('refused'),
        },
        message: refused,
        record: {
          sequenceNumber: refusedRecord.dynamodb?.SequenceNumber,
          eventID: refusedRecord.eventID,
          pk: 'grp#a',
        },
        failedAt: '2026-11-24T12:00:00.000Z',
      },
    ]);
  });

  it('fails the record when its dead letter cannot be sent, so nothing is lost', async () => {
    const sender = fakeSender((m) => new DestinationRefusedError(QUEUE, m.id, 'AccessDenied'));
    const response = await relayWith(sender, [], true).process({
      Records: [record('msg#1', [message('m')])],
    });
    expect(response.batchItemFailures).toHaveLength(1);
  });

  it('fails a record without a new image until the stream view type is fixed, and dead-letters an item that is no outbox item', async () => {
    const noImage = record('msg#1', [message('m')]);
    delete (noImage.dynamodb as { NewImage?: unknown }).NewImage;
    const forged = record('msg#2', []);
    (forged.dynamodb as { NewImage?: unknown }).NewImage = marshall({
      pk: 'msg#2',
      messages: [{ id: 'x' }],
    });
    const letters: OutboxDeadLetter[] = [];
    const outcomes = await relayWith(fakeSender(), letters).relayRecords({
      Records: [noImage, forged],
    });

    expect(outcomes.map(({ status }) => status)).toEqual(['failed', 'deadLettered']);
    expect(outcomes[0]?.error).toBeInstanceOf(OutboxRecordError);
    expect(letters[0]?.reason.error).toBe('OutboxRecordError');
    expect(letters[0]?.image).toEqual(marshall({ pk: 'msg#2', messages: [{ id: 'x' }] }));
  });

  it('relays items of the previous format (no formatVersion) and the current one, and dead-letters one of a newer format version whole, with its image', async () => {
    const versioned = (pk: string, formatVersion: number, body: string) => {
      const stored = record(pk, [message(body)]);
      (stored.dynamodb as { NewImage?: unknown }).NewImage = marshall({
        pk,
        formatVersion,
        messages: [message(body)],
      });
      return stored;
    };
    const newer = versioned('msg#3', 2, 'newer');
    const sender = fakeSender();
    const letters: OutboxDeadLetter[] = [];
    const outcomes = await relayWith(sender, letters).relayRecords({
      Records: [record('msg#1', [message('previous')]), versioned('msg#2', 1, 'current'), newer],
    });

    expect(outcomes.map(({ status }) => status)).toEqual(['relayed', 'relayed', 'deadLettered']);
    expect(sender.sent).toEqual(['previous', 'current']);
    expect(outcomes[2]?.error).toBeUndefined();
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      reason: { error: 'FormatVersionError' },
      image: newer.dynamodb?.NewImage,
      record: { pk: 'msg#3' },
    });
    expect(letters[0]?.message).toBeUndefined();
  });

  it('starts no record past the deadline before the Lambda timeout, reporting them failed', async () => {
    const sender = fakeSender();
    const context = { getRemainingTimeInMillis: () => 500 } as never;
    const outcomes = await relayWith(sender).relayRecords(
      { Records: [record('msg#1', [message('m')])] },
      context,
    );
    expect(sender.sent).toEqual([]);
    expect(outcomes[0]?.error).toBeInstanceOf(RecordDeadlineError);
  });

  it.each([
    ['no Records', {}],
    ['a record without a sequence number', { Records: [{ eventName: 'INSERT', dynamodb: {} }] }],
  ])('fails the whole invocation on %s', async (_, event) => {
    await expect(relayWith(fakeSender()).process(event)).rejects.toThrow(MalformedEventError);
  });

  it('refuses a dead-letter queue that is no queue URL', () => {
    expect(() => createOutboxRelay({ deadLetter: { queueUrl: 'relay-dlq' } })).toThrow(
      /"deadLetter.queueUrl"/,
    );
  });

  it.each([
    ['deadLetterQueueUrl', 'deadLetter.queueUrl'],
    ['deadLetters', 'deadLetter.sink'],
    ['sqsClient', 'sender: new AwsOutboxSender({ sqsClient })'],
    ['concurrency', 'performance.concurrency'],
    ['deadlineMarginMillis', 'reliability.deadlineMarginMillis'],
    ['logger', 'observability.logger'],
    ['now', 'runtime.now'],
  ])('refuses the 0.1.0 option %s, naming where it went (%s)', (old, now) => {
    const attempt = () => createOutboxRelay({ deadLetter: { queueUrl: DLQ }, [old]: 1 } as never);

    expect(attempt).toThrow(`"${old}"`);
    expect(attempt).toThrow(`under its new name, ${now}`);
  });

  it('refuses an option a group does not have, naming the ones it has', () => {
    expect(() =>
      createOutboxRelay({ deadLetter: { queueUrl: DLQ }, performance: { concurency: 2 } } as never),
    ).toThrow(/"performance.concurency".*known options: concurrency/);
  });
});

describe('the relay without a metrics sink', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('writes its counts as one embedded-metric-format line per batch when the construct set a namespace', async () => {
    vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', 'SqsInbox');
    vi.stubEnv('POWERTOOLS_SERVICE_NAME', 'ledger');
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const letters: OutboxDeadLetter[] = [];
    const sender = fakeSender((m) =>
      m.body === 'refused'
        ? new DestinationRefusedError(QUEUE, m.id, 'InvalidParameterValue')
        : undefined,
    );
    const event = {
      Records: [
        record('grp#a', [message('a1'), message('a2')]),
        record('msg#r', [message('refused')]),
      ],
    };

    await relayWith(sender, letters).process(event);

    const documents = stdout.mock.calls
      .map(([line]) => String(line))
      .filter((line) => line.includes('"_aws"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(documents).toHaveLength(1);
    expect(documents[0]).toMatchObject({
      service: 'ledger',
      OutboxMessagesRelayed: 2,
      OutboxDeadLettered: 1,
    });
  });

  it('writes no metric line when no namespace is set', async () => {
    vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', '');
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);

    await relayWith(fakeSender()).process({ Records: [record('grp#a', [message('a1')])] });

    expect(stdout.mock.calls.filter(([line]) => String(line).includes('"_aws"'))).toEqual([]);
  });
});
