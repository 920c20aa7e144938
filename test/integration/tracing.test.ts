/**
 * Tracing on the emulator: the trace contexts the queue really delivers (the `AWSTraceHeader`
 * system attribute, a `traceparent` message attribute) reach the record spans as links, and the
 * relay sends the publishing record's context on to each kind of destination.
 *
 * What MiniStack keeps (1.5.33): SQS keeps `AWSTraceHeader` and message attributes; SNS keeps a
 * `traceparent` message attribute, as an SQS message attribute with raw delivery and inside the
 * notification's `MessageAttributes` without. EventBridge accepts `TraceHeader` but does not pass
 * it to an SQS target (AWS sets the target message's `AWSTraceHeader`): the bus case checks that
 * the event is accepted and delivered, and reads the header on the request.
 */
import { randomUUID } from 'node:crypto';
import { EventBridgeClient, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SpanAttribute } from '../../src/constants/index.js';
import {
  createBatchProcessor,
  DynamoDBInboxStore,
  type MessageHandler,
  MessageSource,
  RecordStatus,
} from '../../src/index.js';
import type { InboxTracer } from '../../src/otel/index.js';
import { toRecord } from '../../tools/local/LocalEventSourceMapping.js';
import { useLedger } from '../support/ledgerFixture.js';
import { takeMessages } from '../support/receiveMessages.js';
import { startRelay } from '../support/relayOutbox.js';
import { everySpanValue, inMemoryTracing, producerContext, spanOf } from '../support/spans.js';
import { recordingLogger, sqsEvent } from '../support/sqsRecords.js';
import { useUpstreams } from '../support/upstreams.js';

const { aws, ledger } = useLedger();
const upstreams = useUpstreams(aws);
const MARKER = 'secret-body-marker';
const Order = z.object({ id: z.string(), note: z.string() });
type Order = z.infer<typeof Order>;

let inbound: { url: string; arn: string };
let outboxTable: string;

beforeAll(async () => {
  inbound = await aws.createQueue(aws.uniqueName('traced'));
  outboxTable = await aws.createOutboxTable(aws.uniqueName('outbox'));
});

function processor(
  handler: MessageHandler<Order>,
  tracer: InboxTracer,
  options: { consumer?: string; sources?: MessageSource[] } = {},
) {
  return createBatchProcessor(handler, {
    store: new DynamoDBInboxStore({
      tableName: ledger.tables.inbox,
      client: aws.dynamodb,
      outbox: { tableName: outboxTable },
    }),
    consumer: options.consumer ?? 'orders',
    schema: Order,
    ...(options.sources === undefined
      ? { key: ({ body }: { body: Order }) => `key-${body.id}` }
      : { sources: options.sources }),
    observability: { logger: recordingLogger(), tracer },
  });
}

/** Sends one order to the inbound queue with the trace carriers given. */
async function send(order: Order, trace: { xRayHeader?: string; traceparent?: string } = {}) {
  await aws.sqs.send(
    new SendMessageCommand({
      QueueUrl: inbound.url,
      MessageBody: JSON.stringify(order),
      ...(trace.traceparent === undefined
        ? {}
        : {
            MessageAttributes: {
              traceparent: { DataType: 'String', StringValue: trace.traceparent },
            },
          }),
      ...(trace.xRayHeader === undefined
        ? {}
        : {
            MessageSystemAttributes: {
              AWSTraceHeader: { DataType: 'String', StringValue: trace.xRayHeader },
            },
          }),
    }),
  );
}

/** The inbound queue's next `count` messages, as Lambda hands them to the function. */
async function receiveBatch(count: number) {
  const messages = await takeMessages(aws.sqs, inbound.url, count);
  expect(messages).toHaveLength(count);
  return sqsEvent(...messages.map((message) => toRecord(message, inbound.arn)));
}

describe('record spans on messages received from the queue', () => {
  it('opens one span per record, linked to the context of its AWSTraceHeader or traceparent, with its outcome, and no key or body', async () => {
    const tracing = inMemoryTracing();
    const viaXRay = producerContext();
    const viaAttribute = producerContext();
    const ok = { id: `ok-${randomUUID()}`, note: MARKER };
    const bad = { id: `bad-${randomUUID()}`, note: MARKER };
    const run = processor(({ body }) => {
      if (body.id.startsWith('bad-')) throw new Error(`refused key-${body.id} ${MARKER}`);
    }, tracing.tracer);

    await send(ok, { xRayHeader: viaXRay.xRayHeader });
    await send(bad, { traceparent: viaAttribute.traceparent });
    const first = await receiveBatch(2);
    expect(first.Records.map((record) => record.attributes.AWSTraceHeader)).toContain(
      viaXRay.xRayHeader,
    );
    await run.process(first);
    await send(ok);
    const again = await receiveBatch(1);
    await run.process(again);

    const spans = tracing.recordSpans();
    expect(spans).toHaveLength(3);
    const idOf = (order: Order) =>
      first.Records.find((record) => record.body === JSON.stringify(order))?.messageId ?? '';
    const committed = spanOf(spans, idOf(ok));
    expect(committed.links.map((link) => link.context)).toEqual([
      expect.objectContaining({ traceId: viaXRay.traceId, spanId: viaXRay.spanId, traceFlags: 1 }),
    ]);
    expect(committed.spanContext().traceId).not.toBe(viaXRay.traceId);
    expect(committed.attributes).toMatchObject({
      'messaging.system': 'aws_sqs',
      'messaging.destination.name': inbound.url.split('/').at(-1),
      [SpanAttribute.Consumer]: 'orders',
      [SpanAttribute.Outcome]: RecordStatus.Processed,
      [SpanAttribute.DeadlineReached]: false,
    });
    const failed = spanOf(spans, idOf(bad));
    expect(failed.links.map((link) => link.context)).toEqual([
      expect.objectContaining({ traceId: viaAttribute.traceId, spanId: viaAttribute.spanId }),
    ]);
    expect(failed.attributes).toMatchObject({
      [SpanAttribute.Outcome]: RecordStatus.Failed,
      'error.type': 'Error',
    });
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    const duplicate = spanOf(spans, again.Records[0]?.messageId ?? '');
    expect(duplicate.attributes[SpanAttribute.Outcome]).toBe(RecordStatus.Duplicate);
    expect(duplicate.links).toEqual([]);

    const values = everySpanValue(tracing.exporter.getFinishedSpans());
    for (const value of values) {
      expect(value).not.toContain(MARKER);
      expect(value).not.toContain(ok.id);
      expect(value).not.toContain(bad.id);
    }
  });
});

describe('the trace across the outbox hop, on the emulator', () => {
  const sinks = {} as Record<'queue' | 'raw' | 'enveloped' | 'bus', { url: string; arn: string }>;
  let topics: { raw: string; enveloped: string };
  let busArn: string;
  let relay: Awaited<ReturnType<typeof startRelay>>;
  // MiniStack accepts PutEvents' TraceHeader but keeps none of it (it reaches no target), so
  // what the relay puts is read on its way to the emulator.
  const putEntries: PutEventsRequestEntry[] = [];
  const eventBridge = new EventBridgeClient({
    endpoint: aws.endpoints.sqs,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  eventBridge.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { Entries?: PutEventsRequestEntry[] };
      putEntries.push(...(input.Entries ?? []));
      return next(args);
    },
    { step: 'initialize', name: 'watchPutEvents' },
  );

  beforeAll(async () => {
    for (const name of ['queue', 'raw', 'enveloped', 'bus'] as const) {
      sinks[name] = await aws.createQueue(aws.uniqueName(`sink-${name}`));
    }
    topics = {
      raw: (await upstreams.topicTo(sinks.raw.arn, { raw: true })).topicArn,
      enveloped: (await upstreams.topicTo(sinks.enveloped.arn)).topicArn,
    };
    busArn = (await upstreams.busTo(sinks.bus.arn, 'orders')).busArn;
    const dlq = await aws.createQueue(aws.uniqueName('relay-dlq'));
    relay = await startRelay(aws, outboxTable, dlq.url, { eventBridgeClient: eventBridge });
  });
  afterAll(async () => {
    await relay?.stop();
    eventBridge.destroy();
  });

  it("stores the record span's traceparent on its outbox items, and the relay sends it: AWSTraceHeader to SQS, traceparent to SNS, TraceHeader to EventBridge", async () => {
    const tracing = inMemoryTracing();
    const order = { id: `relayed-${randomUUID()}`, note: 'published' };
    const ids: string[] = [];
    await send(order, { xRayHeader: producerContext().xRayHeader });
    await processor((_message, tx) => {
      for (const destination of [sinks.queue.url, topics.raw, topics.enveloped]) {
        ids.push(tx.publish({ destination, body: { id: destination, note: 'relayed' } }));
      }
      ids.push(
        tx.publish({ destination: busArn, body: {}, source: 'orders', detailType: 'Relayed' }),
      );
    }, tracing.tracer).process(await receiveBatch(1));
    const [span] = tracing.recordSpans();
    const { traceId, spanId } = span?.spanContext() ?? { traceId: '', spanId: '' };
    const traceparent = `00-${traceId}-${spanId}-01`;
    for (const id of ids) {
      const { Item } = await aws.documentClient.send(
        new GetCommand({ TableName: outboxTable, Key: { pk: `msg#${id}` } }),
      );
      expect(Item?.traceparent).toBe(traceparent);
    }
    await relay.mapping.drain();

    const { Messages: [toQueue] = [] } = await aws.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: sinks.queue.url,
        WaitTimeSeconds: 5,
        MessageSystemAttributeNames: ['AWSTraceHeader'],
        MessageAttributeNames: ['All'],
      }),
    );
    const xRayHeader = `Root=1-${traceId.slice(0, 8)}-${traceId.slice(8)};Parent=${spanId};Sampled=1`;
    expect(toQueue?.Attributes?.AWSTraceHeader).toBe(xRayHeader);
    const [raw] = await takeMessages(aws.sqs, sinks.raw.url, 1);
    expect(raw?.MessageAttributes?.traceparent?.StringValue).toBe(traceparent);
    const [enveloped] = await takeMessages(aws.sqs, sinks.enveloped.url, 1);
    expect(JSON.parse(enveloped?.Body ?? '{}').MessageAttributes?.traceparent).toEqual({
      Type: 'String',
      Value: traceparent,
    });
    const [event] = await takeMessages(aws.sqs, sinks.bus.url, 1);
    expect(JSON.parse(event?.Body ?? '{}')).toMatchObject({ 'detail-type': 'Relayed' });
    expect(putEntries.find((entry) => entry.DetailType === 'Relayed')?.TraceHeader).toBe(
      xRayHeader,
    );

    // The next consumer's spans link to the publishing record's: one trace across the hop.
    const downstream = inMemoryTracing();
    const received = [
      { message: toQueue, queue: sinks.queue, sources: [MessageSource.Outbox] },
      { message: raw, queue: sinks.raw, sources: [MessageSource.Outbox] },
      { message: enveloped, queue: sinks.enveloped, sources: [MessageSource.Sns] },
    ];
    for (const { message, queue, sources } of received) {
      const record = toRecord(message ?? {}, queue.arn);
      await processor(() => {}, downstream.tracer, {
        consumer: `downstream-${sources[0]}`,
        sources,
      }).process(sqsEvent(record));
      const next = spanOf(downstream.recordSpans(), record.messageId);
      expect(next.attributes[SpanAttribute.Outcome]).toBe(RecordStatus.Processed);
      expect(next.links.map((link) => link.context)).toEqual([
        expect.objectContaining({ traceId, spanId }),
      ]);
    }
  });
});
