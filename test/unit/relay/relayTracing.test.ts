import { marshall } from '@aws-sdk/util-dynamodb';
import { SpanKind } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { OutboxAttribute, outboxMessageId, SpanAttribute } from '../../../src/constants/index.js';
import { openTelemetryTracer } from '../../../src/otel/index.js';
import type { OutgoingTrace } from '../../../src/outbox/OutboxSender.js';
import type { OutgoingMessage } from '../../../src/outbox/OutgoingMessage.js';
import { createOutboxRelay } from '../../../src/relay/createOutboxRelay.js';
import { recordingLogger } from '../../support/sqsRecords.js';

const QUEUE = 'http://localhost:4566/000000000000/credits';
const DLQ = 'http://localhost:4566/000000000000/relay-dlq';
const ORIGIN = '00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01';

function streamRecord(traceparent?: string): { record: DynamoDBRecord; message: OutgoingMessage } {
  const message: OutgoingMessage = {
    id: outboxMessageId('ledger', 'k', { index: 0 }),
    destination: QUEUE,
    kind: 'sqs',
    body: 'secret body',
  };
  const item = {
    pk: `msg#${message.id}`,
    messages: [message],
    [OutboxAttribute.Origin]: { consumer: 'ledger', keyHash: '7b409f932d2c88e9' },
    ...(traceparent === undefined ? {} : { [OutboxAttribute.TraceParent]: traceparent }),
  };
  const record = {
    eventName: 'INSERT',
    dynamodb: {
      SequenceNumber: '1',
      Keys: marshall({ pk: item.pk }) as never,
      NewImage: marshall(item) as never,
    },
  } as DynamoDBRecord;
  return { record, message };
}

function relay(tracing: boolean) {
  const traces: Array<OutgoingTrace | undefined> = [];
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const logger = recordingLogger();
  const processor = createOutboxRelay({
    deadLetter: { queueUrl: DLQ, sink: { send: async () => {} } },
    sender: {
      send: async (_message, trace) => {
        traces.push(trace);
      },
    },
    observability: {
      logger,
      ...(tracing ? { tracer: openTelemetryTracer({ tracer: provider.getTracer('t') }) } : {}),
    },
  });
  return { processor, traces, exporter, logger };
}

describe('the relay across the outbox hop', () => {
  it("sends on the stored context from a PRODUCER span linked to the publishing record's span", async () => {
    const { processor, traces, exporter } = relay(true);
    const { record } = streamRecord(ORIGIN);

    await processor.process({ Records: [record] });

    const [span] = exporter.getFinishedSpans();
    expect(span?.kind).toBe(SpanKind.PRODUCER);
    expect(span?.name).toBe('send credits');
    expect(span?.links.map((link) => link.context.spanId)).toEqual(['53995c3f42cd8ad8']);
    expect(span?.attributes).toMatchObject({
      [SpanAttribute.Outcome]: 'relayed',
      [SpanAttribute.KeyHash]: '7b409f932d2c88e9',
    });
    const { traceId, spanId } = span?.spanContext() ?? {};
    expect(traces).toEqual([{ traceparent: `00-${traceId}-${spanId}-01` }]);
  });

  it('sends the stored context on as it is without a tracer, and nothing when none was stored', async () => {
    const { processor, traces } = relay(false);

    await processor.process({ Records: [streamRecord(ORIGIN).record, streamRecord().record] });

    expect(traces).toEqual([{ traceparent: ORIGIN }, undefined]);
  });

  it('logs one INFO outcome line per relayed message with the origin key hash, never the body', async () => {
    const { processor, logger } = relay(false);
    const { record, message } = streamRecord();

    await processor.process({ Records: [record] });

    const lines = logger.lines.filter((line) => line.message === 'outbox message outcome');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'info',
      extra: { outcome: 'relayed', messageId: message.id, keyHash: '7b409f932d2c88e9' },
    });
    expect(JSON.stringify(logger.lines)).not.toContain('secret body');
  });
});
