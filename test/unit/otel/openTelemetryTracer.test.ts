/**
 * The tracer through the OpenTelemetry adapter, into the SDK's in-memory exporter: a batch
 * processed against the simulation's DynamoDB (held to DynamoDB Local by the conformance suite).
 * Only ended spans reach the exporter, so a span found there is a span ended.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { Context, SQSRecord } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { DynamoDBInboxStore } from '../../../src/aws/DynamoDBInboxStore.js';
import { createBatchProcessor } from '../../../src/batch/createBatchProcessor.js';
import { SpanAttribute } from '../../../src/constants/index.js';
import type { MessageHandler } from '../../../src/core/types.js';
import { RecordStatus } from '../../../src/index.js';
import { openTelemetryTracer } from '../../../src/otel/index.js';
import { SimDocumentClient } from '../../../src/testing/dynamo/SimDocumentClient.js';
import { SimDynamoDB } from '../../../src/testing/dynamo/SimDynamoDB.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../../support/sqsRecords.js';

const MARKER = 'secret-body-marker';
const AUDIT = 'https://sqs.eu-west-1.amazonaws.com/123456789012/audit';
const X_RAY = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';

function world() {
  const dynamo = new SimDynamoDB();
  for (const TableName of ['inbox', 'outbox']) {
    dynamo.createTable({
      TableName,
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    });
  }
  const store = new DynamoDBInboxStore({
    tableName: 'inbox',
    client: new SimDocumentClient({ dynamo }).documentClient,
    outbox: { tableName: 'outbox', retentionSeconds: 7 * 86_400 },
  });
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = openTelemetryTracer({ tracer: provider.getTracer('test') });
  const logger = recordingLogger();
  const processor = (handler: MessageHandler<{ id: string }>, tracing = true) =>
    createBatchProcessor(handler as MessageHandler<unknown>, {
      store,
      consumer: 'ledger',
      key: ({ body }) => `key-${(body as { id: string }).id}`,
      observability: { logger, ...(tracing ? { tracer } : {}) },
    });
  const outboxItem = (id: string) =>
    dynamo.getItem({ TableName: 'outbox', Key: { pk: { S: `msg#${id}` } } }).Item;
  return { processor, exporter, logger, outboxItem };
}

function traced(record: SQSRecord, header: string): SQSRecord {
  return { ...record, attributes: { ...record.attributes, AWSTraceHeader: header } };
}

function spanOf(spans: readonly ReadableSpan[], messageId: string): ReadableSpan {
  const found = spans.filter((span) => span.attributes['messaging.message.id'] === messageId);
  expect(found).toHaveLength(1);
  return found[0] as ReadableSpan;
}

/** Every value a span carries: attributes, its links' and its events' attributes, its name. */
function everyValue(spans: readonly ReadableSpan[]): string[] {
  return spans.flatMap((span) => [
    span.name,
    ...Object.values(span.attributes).map(String),
    ...span.links.flatMap((link) => Object.values(link.attributes ?? {}).map(String)),
    ...span.events.flatMap((event) => Object.values(event.attributes ?? {}).map(String)),
    span.status.message ?? '',
  ]);
}

const contexts: Array<{ release: () => void }> = [];
afterEach(() => {
  for (const pending of contexts.splice(0)) pending.release();
});

describe('openTelemetryTracer over a batch', () => {
  it('opens one CONSUMER span per record with its outcome and the messaging attributes', async () => {
    const { processor, exporter } = world();
    const handler: MessageHandler<{ id: string }> = ({ body }) => {
      if (body.id === 'bad') throw new Error(`refused ${MARKER}`);
    };
    const ok = sqsRecord({ id: '1', note: MARKER });
    const bad = sqsRecord({ id: 'bad', note: MARKER });
    await processor(handler).process(sqsEvent(ok, bad));
    const again = sqsRecord({ id: '1', note: MARKER });
    await processor(handler).process(sqsEvent(again));

    const spans = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.CONSUMER);
    expect(spans).toHaveLength(3);
    const committed = spanOf(spans, ok.messageId);
    expect(committed.name).toBe('process orders');
    expect(committed.attributes).toMatchObject({
      'messaging.system': 'aws_sqs',
      'messaging.operation.type': 'process',
      'messaging.destination.name': 'orders',
      [SpanAttribute.Consumer]: 'ledger',
      [SpanAttribute.Outcome]: RecordStatus.Processed,
      [SpanAttribute.Attempts]: 1,
      [SpanAttribute.DeadlineReached]: false,
    });
    expect(committed.attributes[SpanAttribute.KeyHash]).toMatch(/^[0-9a-f]{16}$/);
    expect(spanOf(spans, bad.messageId).attributes).toMatchObject({
      [SpanAttribute.Outcome]: RecordStatus.Failed,
      'error.type': 'Error',
    });
    expect(spanOf(spans, bad.messageId).status.code).toBe(SpanStatusCode.ERROR);
    expect(spanOf(spans, again.messageId).attributes[SpanAttribute.Outcome]).toBe(
      RecordStatus.Duplicate,
    );
  });

  it("links a record's span to the producer context of its AWSTraceHeader, never parenting it", async () => {
    const { processor, exporter } = world();
    const record = traced(sqsRecord({ id: '1' }), X_RAY);

    await processor(() => {}).process(sqsEvent(record));

    const span = spanOf(exporter.getFinishedSpans(), record.messageId);
    expect(span.links).toHaveLength(1);
    expect(span.links[0]?.context).toMatchObject({
      traceId: '5759e988bd862e3fe1be46a994272793',
      spanId: '53995c3f42cd8ad8',
      traceFlags: 1,
    });
    expect(span.spanContext().traceId).not.toBe('5759e988bd862e3fe1be46a994272793');
  });

  it('opens a child span per step, marked replayed or not', async () => {
    const { processor, exporter } = world();
    const record = sqsRecord({ id: '1' });

    await processor(async (_message) => {
      await _message.step('charge', () => 'ch_1');
      await _message.step('email', () => undefined);
    }).process(sqsEvent(record));

    const spans = exporter.getFinishedSpans();
    const parent = spanOf(spans, record.messageId);
    const steps = spans.filter(
      (span) => span.parentSpanContext?.spanId === parent.spanContext().spanId,
    );
    expect(steps.map((span) => span.name).sort()).toEqual(['step charge', 'step email']);
    expect(steps.every((span) => span.attributes[SpanAttribute.StepReplayed] === false)).toBe(true);
    expect(parent.attributes).toMatchObject({
      [SpanAttribute.StepsRun]: 2,
      [SpanAttribute.StepsReplayed]: 0,
    });
  });

  it('counts a step refused by another attempt’s live lease as neither run nor replayed, its span carrying only the error', async () => {
    const { processor, exporter } = world();
    const [first, copy] = [sqsRecord({ id: '1' }), sqsRecord({ id: '1' })];
    const hold = new Promise<void>((release) => contexts.push({ release }));
    let started!: () => void;
    const charging = new Promise<void>((resolve) => {
      started = resolve;
    });
    const firstBatch = processor(async ({ step }) => {
      await step('charge', async () => {
        started();
        await hold;
      });
    }).process(sqsEvent(first));
    await charging;

    const answer = await processor(async ({ step }) => {
      await step('charge', () => 'ch_2');
    }).process(sqsEvent(copy));
    for (const pending of contexts.splice(0)) pending.release();
    await firstBatch;

    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: copy.messageId }]);
    const spans = exporter.getFinishedSpans();
    const refused = spanOf(spans, copy.messageId);
    expect(refused.attributes).toMatchObject({
      [SpanAttribute.StepsRun]: 0,
      [SpanAttribute.StepsReplayed]: 0,
      'error.type': 'LeaseHeldError',
    });
    const step = spans.find(
      (span) => span.parentSpanContext?.spanId === refused.spanContext().spanId,
    );
    expect(step?.name).toBe('step charge');
    expect(step?.attributes).not.toHaveProperty(SpanAttribute.StepReplayed);
    expect(step?.status.code).toBe(SpanStatusCode.ERROR);
    expect(spanOf(spans, first.messageId).attributes).toMatchObject({
      [SpanAttribute.StepsRun]: 1,
      [SpanAttribute.StepsReplayed]: 0,
    });
  });

  it('counts a step answered from the journal as replayed, not run', async () => {
    const { processor, exporter } = world();
    const [first, redelivered] = [sqsRecord({ id: '1' }), sqsRecord({ id: '1' })];
    let failOnce = true;
    const handler: MessageHandler<{ id: string }> = async ({ step }) => {
      await step('charge', () => 'ch_1');
      if (failOnce) {
        failOnce = false;
        throw new Error('downstream refused');
      }
    };

    await processor(handler).process(sqsEvent(first));
    await processor(handler).process(sqsEvent(redelivered));

    const spans = exporter.getFinishedSpans();
    const again = spanOf(spans, redelivered.messageId);
    expect(again.attributes).toMatchObject({
      [SpanAttribute.StepsRun]: 0,
      [SpanAttribute.StepsReplayed]: 1,
    });
    const step = spans.find(
      (span) => span.parentSpanContext?.spanId === again.spanContext().spanId,
    );
    expect(step?.attributes[SpanAttribute.StepReplayed]).toBe(true);
  });

  it('puts no key and no body in any attribute, link, event or name', async () => {
    const { processor, exporter } = world();
    const records = [
      traced(sqsRecord({ id: MARKER, note: MARKER }), X_RAY),
      sqsRecord({ id: 'bad', note: MARKER }),
    ];

    await processor(async ({ body, step }) => {
      await step('charge', () => ({ receipt: MARKER }));
      if (body.id === 'bad') throw new Error(`refused key-${body.id} ${MARKER}`);
    }).process(sqsEvent(...records));

    const values = everyValue(exporter.getFinishedSpans());
    expect(values.length).toBeGreaterThan(20);
    for (const value of values) {
      expect(value).not.toContain(MARKER);
      expect(value).not.toContain('key-');
    }
  });

  it('stores the record span context on the outbox items its transaction writes', async () => {
    const { processor, exporter, outboxItem } = world();
    const record = sqsRecord({ id: '1' });
    let published = '';

    await processor((_message, tx) => {
      published = tx.publish({ destination: AUDIT, body: { done: true } });
    }).process(sqsEvent(record));

    const span = spanOf(exporter.getFinishedSpans(), record.messageId);
    const { traceId, spanId } = span.spanContext();
    expect(outboxItem(published)?.traceparent?.S).toBe(`00-${traceId}-${spanId}-01`);
  });

  it('ends the span of a record cut at the deadline, and its running step span, saying so and counting the step run', async () => {
    const { processor, exporter, logger } = world();
    const record = sqsRecord({ id: '1' });
    const hold = new Promise<void>((release) => contexts.push({ release }));
    const context = { getRemainingTimeInMillis: () => 1_100 } as Context;

    const outcomes = await processor(async ({ step }) => {
      await step('slow', () => hold);
    }).processRecords(sqsEvent(record), context);

    expect(outcomes[0]?.status).toBe(RecordStatus.Failed);
    const spans = exporter.getFinishedSpans();
    const span = spanOf(spans, record.messageId);
    expect(span.attributes).toMatchObject({
      [SpanAttribute.Outcome]: RecordStatus.Failed,
      [SpanAttribute.DeadlineReached]: true,
      'error.type': 'RecordDeadlineError',
    });
    expect(span.attributes[SpanAttribute.StepsRun]).toBe(1);
    const step = spans.find((candidate) => candidate.name === 'step slow');
    expect(step?.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
    expect(step?.attributes[SpanAttribute.StepReplayed]).toBe(false);
    const lines = logger.lines.filter((line) => line.message === 'message outcome');
    expect(lines).toHaveLength(1);
    expect(lines[0]?.extra).toMatchObject({ outcome: 'failed', deadlineReached: true });
  });
});

describe('the outcome line', () => {
  it('logs one INFO line per record, with its outcome, id, key hash, attempts and duration, tracer or not', async () => {
    const { processor, logger, exporter } = world();
    const ok = sqsRecord({ id: '1', note: MARKER }, { receiveCount: 2 });
    const bad = sqsRecord('not json');

    await processor(() => {}, false).process(sqsEvent(ok, bad));

    expect(exporter.getFinishedSpans()).toHaveLength(0);
    const lines = logger.lines.filter((line) => line.message === 'message outcome');
    expect(lines.map((line) => line.level)).toEqual(['info', 'info']);
    const byId = new Map(lines.map((line) => [line.extra?.messageId, line.extra]));
    expect(byId.get(ok.messageId)).toMatchObject({
      consumer: 'ledger',
      outcome: RecordStatus.Processed,
      keyHash: expect.stringMatching(/^[0-9a-f]{16}$/),
      attempts: 2,
      durationMs: expect.any(Number),
    });
    expect(byId.get(bad.messageId)).toMatchObject({
      outcome: RecordStatus.Failed,
      errorType: 'MessageParseError',
    });
    expect(JSON.stringify(lines)).not.toContain(MARKER);
    expect(JSON.stringify(lines)).not.toContain('key-1');
  });
});
