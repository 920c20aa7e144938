import { randomUUID } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';

const STANDARD_ARN = 'arn:aws:sqs:us-east-1:000000000000:orders';
const FIFO_ARN = 'arn:aws:sqs:us-east-1:000000000000:payments.fifo';

/** An SQS record as Lambda delivers it; `fifo` adds the group and deduplication ids. */
export function sqsRecord(
  body: unknown,
  overrides: {
    messageId?: string;
    fifo?: { groupId: string; deduplicationId?: string };
    receiveCount?: number;
  } = {},
): SQSRecord {
  const messageId = overrides.messageId ?? randomUUID();
  const fifo = overrides.fifo;
  return {
    messageId,
    receiptHandle: `handle-${messageId}`,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    attributes: {
      ApproximateReceiveCount: String(overrides.receiveCount ?? 1),
      SentTimestamp: String(Date.now()),
      SenderId: 'AIDATEST',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
      ...(fifo
        ? {
            MessageGroupId: fifo.groupId,
            MessageDeduplicationId: fifo.deduplicationId ?? randomUUID(),
            SequenceNumber: String(Date.now()),
          }
        : {}),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: fifo ? FIFO_ARN : STANDARD_ARN,
    awsRegion: 'us-east-1',
  };
}

/** An SQS event of the given records. */
export function sqsEvent(...records: SQSRecord[]): SQSEvent {
  return { Records: records };
}

/** A logger that keeps what it is given, to assert on. */
export function recordingLogger() {
  const lines: Array<{
    level: string;
    message: string;
    extra: Record<string, unknown> | undefined;
  }> = [];
  const at =
    (level: string) =>
    (message: string, ...extras: Array<Record<string, unknown>>) => {
      lines.push({ level, message, extra: extras[0] });
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** A metrics sink that adds up what it is given, by name. */
export function countingMetrics() {
  const totals = new Map<string, number>();
  return {
    totals,
    count: (name: string) => totals.get(name) ?? 0,
    addMetric(name: string, _unit: string, value: number) {
      totals.set(name, (totals.get(name) ?? 0) + value);
    },
  };
}
